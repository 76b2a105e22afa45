"""``AlterOpLayout()``: the cpu target's layout pass (csrc/relay/transforms/alter_op_layout.cc), re-exported by
``relay.transform``.

    mod = AlterOpLayout()(mod)              # conv2d -> nn.contrib_conv2d_NCHWc on NCHW{c}c activations
    mod = AlterOpLayout(max_block=16)(mod)  # the same IR whatever the machine's vectors (tests)
"""
from . import _ffi_api
from .transform import Pass

__all__ = ["AlterOpLayout"]


def AlterOpLayout(max_block=None):  # noqa: N802 - TVM's name
    """Rewrite main's convolutions to the blocked layout NCHW{c}c and carry that layout through the elementwise ops,
    pools and concatenates that follow, with a layout_transform only where a value enters or leaves the blocked
    part. Blocks are the largest of 16, 8, 4, 2, 1 dividing the channels and at most max_block (default: 16 on
    AVX-512, 8 otherwise). Weights are packed by layout_transforms that FoldConstant evaluates at build."""
    block = 0 if max_block is None else int(max_block)
    fn = _ffi_api.__getattr__("_transform.AlterOpLayout")
    return Pass("AlterOpLayout", lambda mod: fn(mod, block))
