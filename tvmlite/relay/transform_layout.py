"""``AlterOpLayout()``: the cpu target's layout pass (csrc/relay/transforms/alter_op_layout.cc), re-exported by
``relay.transform``.

    mod = AlterOpLayout()(mod)              # conv2d -> nn.contrib_conv2d_NCHWc on NCHW{c}c activations
    mod = AlterOpLayout(max_block=16)(mod)  # the same IR whatever the machine's vectors (tests)
"""
from . import _ffi_api

try:  # the pass infrastructure (tvmlite.ir.transform): a Pass with TVM's opt_level, 3 for AlterOpLayout
    from ..ir.transform import Pass as _Pass

    def _make_pass(name, run):
        return _Pass(name, run, opt_level=3)
except ImportError:  # pragma: no cover - trees without it
    from .transform import Pass as _Pass

    def _make_pass(name, run):
        return _Pass(name, run)

__all__ = ["AlterOpLayout"]


def AlterOpLayout(max_block=None):  # noqa: N802 - TVM's name
    """Rewrite main's convolutions to the blocked layout NCHW{c}c and carry that layout through the elementwise ops,
    pools and concatenates that follow, with a layout_transform only where a value enters or leaves the blocked
    part. Blocks are the largest of 16, 8, 4, 2, 1 dividing the channels and at most max_block (default: 16 on
    AVX-512, 8 otherwise). Weights are packed by layout_transforms that FoldConstant evaluates at build."""
    if max_block is not None and (not isinstance(max_block, int) or isinstance(max_block, bool)):
        raise TypeError(f"AlterOpLayout: max_block must be an int, got {type(max_block).__name__}")
    block = 0 if max_block is None else max_block
    fn = _ffi_api.__getattr__("_transform.AlterOpLayout")
    return _make_pass("AlterOpLayout", lambda mod: fn(mod, block))
