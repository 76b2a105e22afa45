"""topi.nn.depthwise_chain_nchwc (csrc/topi/nn/depthwise_chain.cc): a depthwise conv with the 1x1 convs around it,
computed band by band of rows (large planes) or, for an expand and a depthwise over small planes, channel block group
by group. Its output must equal, bit for bit, the stage kernels run one after another (both paths run their own loops
on windows of rows or on groups of channel blocks, in the same order), and a float64 numpy reference within float32
rounding; over odd sizes, strides, kernel sizes, dilation, asymmetric padding, batches, channel blocks (odd counts
of them), the three stage sets, register and interpreter epilogues, every ISA path and both thread counts. Also: the
band and split policies, and bad input raising errors that name the kernel."""
import numpy as np
import pytest

import tvmlite
from blocked import pack, unpack

_get = tvmlite.get_global_func
KERNEL = "topi.nn.depthwise_chain_nchwc"
RELU6 = "add r0 r0 in0; clip r0 r0 0 6"


class Chain:
    """One chain's tensors (NCHW, float32) and attrs; `stages` a subset of expand, depthwise, project."""

    def __init__(self, rng, stages, n, c, h, w, e, o, k=3, stride=1, pad=(1, 1, 1, 1), dilation=1, ic=16, oc=16,
                 epilogues=None, ek=1, estride=1, epad=(0, 0, 0, 0), ec=16):
        self.stages, self.k, self.stride, self.pad, self.dilation = stages, k, stride, pad, dilation
        self.ek, self.estride, self.epad = ek, estride, epad  # the expand's window (a stem's 3x3 s2, or 1x1)
        self.ic, self.oc, self.ec = ic, oc, ec  # ec: the expand's output block (the block through the chain)
        if "expand" not in stages:
            e = c
        self.e = e
        self.out_c = o if "project" in stages else e
        self.x = rng.standard_normal((n, c, h, w)).astype(np.float32)
        if "expand" in stages:  # the depthwise reads the expand's output
            h = (h + epad[0] + epad[2] - ek) // estride + 1
            w = (w + epad[1] + epad[3] - ek) // estride + 1
        self.dw_in = (h, w)
        self.w = {"expand": (rng.standard_normal((e, c, ek, ek)) / np.sqrt(c * ek * ek)).astype(np.float32),
                  "depthwise": (rng.standard_normal((e, 1, k, k)) / k).astype(np.float32),
                  "project": (rng.standard_normal((o, e, 1, 1)) / np.sqrt(e)).astype(np.float32)}
        default = {"expand": RELU6, "depthwise": RELU6, "project": "add r0 r0 in0"}
        self.epilogue = dict(default, **(epilogues or {}))
        oh = (h + pad[0] + pad[2] - dilation * (k - 1) - 1) // stride + 1
        ow = (w + pad[1] + pad[3] - dilation * (k - 1) - 1) // stride + 1
        self.out_shape = (n, self.out_c, oh, ow)
        # each stage's epilogue inputs (NCHW): a per-channel bias (1, C, 1, 1), or the output's shape for "in1"
        self.inputs = {}
        for s in stages:
            channels = {"expand": e, "depthwise": e, "project": o}[s]
            shape = {"expand": (n, e, h, w), "depthwise": (n, e, oh, ow), "project": (n, o, oh, ow)}[s]
            text = self.epilogue[s]
            ins = []
            if "in0" in text:
                ins.append(rng.standard_normal((1, channels, 1, 1)).astype(np.float32))
            if "in1" in text:
                ins.append(rng.standard_normal(shape).astype(np.float32))
            self.inputs[s] = ins

    def block(self, stage):
        """The channel block of a stage's output (its weight's last dim)."""
        return self.oc if stage == "project" else (self.ec if "expand" in self.stages else self.ic)

    def attrs(self):
        a = {"stages": ",".join(self.stages)}
        for s in self.stages:
            a.update({s + "." + k: v for k, v in self.stage_attrs(s).items()})
        return a

    def stage_attrs(self, stage):
        a = {"epilogue": self.epilogue[stage]}
        if stage == "depthwise":
            a.update(strides=[self.stride] * 2, padding=list(self.pad), dilation=[self.dilation] * 2)
        if stage == "expand" and (self.ek, self.estride, tuple(self.epad)) != (1, 1, (0, 0, 0, 0)):
            a.update(strides=[self.estride] * 2, padding=list(self.epad))
        return a

    def packed_weight(self, stage):
        """OIHW -> OIHW{i}i{o}o with the stage's blocks."""
        w = self.w[stage]
        ob = self.block(stage)
        ib = 1 if stage == "depthwise" else (self.ic if stage == "expand" else self.block("depthwise"))
        o, i, kh, kw = w.shape
        return np.ascontiguousarray(w.reshape(o // ob, ob, i // ib, ib, kh, kw).transpose(0, 2, 4, 5, 3, 1))

    def packed_inputs(self, stage):
        return [pack(v, self.block(stage)) for v in self.inputs[stage]]

    def args(self):
        args = [pack(self.x, self.ic)]
        for s in self.stages:
            args.append(self.packed_weight(s))
            args.extend(self.packed_inputs(s))
        return [tvmlite.nd.array(a) for a in args]

    def packed_out_shape(self):
        n, c, h, w = self.out_shape
        b = self.block("project" if "project" in self.stages else "depthwise")
        return (n, c // b, h, w, b)

    def run_chain(self):
        out = tvmlite.nd.array(np.full(self.packed_out_shape(), np.nan, np.float32))
        _get(KERNEL)(self.attrs())(*self.args(), out)
        return out.numpy()

    def run_stages(self):
        """The stage kernels one after another (the oracle of exactness)."""
        cur = tvmlite.nd.array(pack(self.x, self.ic))
        for s in self.stages:
            factory = "topi.nn.depthwise_conv2d_nchwc" if s == "depthwise" else "topi.nn.conv2d_nchwc"
            n, _, h, w, _ = cur.shape
            if s == "depthwise":
                h, w = self.out_shape[2:]
            if s == "expand":
                h = (h + self.epad[0] + self.epad[2] - self.ek) // self.estride + 1
                w = (w + self.epad[1] + self.epad[3] - self.ek) // self.estride + 1
            channels = self.out_c if s == "project" else self.e
            b = self.block(s)
            nxt = tvmlite.nd.empty((n, channels // b, h, w, b), "float32")
            ins = [tvmlite.nd.array(v) for v in self.packed_inputs(s)]
            _get(factory)(self.stage_attrs(s))(cur, tvmlite.nd.array(self.packed_weight(s)), *ins, nxt)
            cur = nxt
        return cur.numpy()

    def reference(self):
        """float64 numpy, for the epilogues these tests use (bias, residual, relu6, relu)."""
        def epilogue(stage, v):
            text, ins = self.epilogue[stage], self.inputs[stage]
            if "in0" in text:
                v = v + ins[0]
            if "in1" in text:
                v = v + ins[1]
            if "clip" in text:
                v = np.clip(v, 0, 6)
            if "relu" in text:
                v = np.maximum(v, 0)
            return v
        v = self.x.astype(np.float64)
        if "expand" in self.stages:
            top, left, bottom, right = self.epad
            xp = np.pad(v, ((0, 0), (0, 0), (top, bottom), (left, right)))
            s, k = self.estride, self.ek
            eh, ew = (xp.shape[2] - k) // s + 1, (xp.shape[3] - k) // s + 1
            v = sum(np.einsum("nchw,ec->nehw", xp[:, :, i:i + s * (eh - 1) + 1:s, j:j + s * (ew - 1) + 1:s],
                              self.w["expand"][:, :, i, j]) for i in range(k) for j in range(k))
            v = epilogue("expand", v)
        top, left, bottom, right = self.pad
        v = np.pad(v, ((0, 0), (0, 0), (top, bottom), (left, right)))
        oh, ow = self.out_shape[2:]
        acc = np.zeros((v.shape[0], v.shape[1], oh, ow))
        s, d = self.stride, self.dilation
        for i in range(self.k):
            for j in range(self.k):
                acc += v[:, :, i * d:i * d + s * (oh - 1) + 1:s, j * d:j * d + s * (ow - 1) + 1:s] * \
                    self.w["depthwise"][None, :, 0, i, j, None, None]
        v = epilogue("depthwise", acc)
        if "project" in self.stages:
            v = epilogue("project", np.einsum("nehw,oe->nohw", v, self.w["project"][:, :, 0, 0]))
        return v


FULL = ("expand", "depthwise", "project")
CASES = [
    # (stages, n, c, h, w, e, o, dict(k, stride, pad, dilation, ic, oc))
    (FULL, 1, 24, 56, 56, 144, 24, dict(ic=8, oc=8)),            # MobileNetV2's 56x56 block
    (FULL, 1, 16, 37, 45, 160, 32, {}),                           # odd sizes
    (FULL, 2, 16, 32, 31, 144, 16, {}),                           # batch 2
    (FULL, 1, 16, 57, 41, 96, 24, dict(stride=2, oc=8)),          # stride 2, odd
    (FULL, 1, 32, 36, 36, 192, 32, dict(k=5, pad=(2, 2, 2, 2))),  # 5x5
    (FULL, 1, 16, 40, 40, 160, 16, dict(dilation=2, pad=(2, 2, 2, 2))),
    (FULL, 1, 16, 48, 48, 128, 16, dict(pad=(0, 1, 1, 0))),       # asymmetric padding
    (FULL, 1, 16, 35, 35, 256, 16, dict(k=3, stride=2, pad=(0, 0, 0, 0))),
    (FULL, 1, 4, 48, 48, 128, 16, dict(ic=4)),                    # a narrow input block
    (("depthwise", "project"), 1, 32, 112, 112, 32, 16, {}),      # MobileNetV2's first block
    (("depthwise", "project"), 1, 160, 90, 74, 160, 24, dict(stride=2, oc=8)),
    (("expand", "depthwise"), 1, 16, 50, 50, 128, 0, {}),         # before a squeeze-excite block
    (("expand", "depthwise"), 2, 8, 45, 41, 160, 0, dict(stride=2, ic=8)),
    (FULL, 1, 3, 224, 224, 32, 16, dict(ic=1, ek=3, estride=2, epad=(1, 1, 1, 1))),  # MobileNet's stem: the
    (FULL, 1, 3, 161, 157, 32, 24, dict(ic=3, ek=3, estride=2, epad=(1, 1, 1, 1), oc=8)),  # expand is 3x3 s2
    (("expand", "depthwise"), 2, 8, 97, 95, 128, 0, dict(ic=8, ek=3, estride=2, epad=(0, 1, 1, 0), stride=2)),
    (FULL, 1, 16, 40, 40, 160, 16, dict(ek=3, epad=(1, 1, 1, 1))),
    (FULL, 1, 16, 8, 8, 32, 16, {}),                              # small: the stages run whole
    # 8-channel blocks through the chain (AVX2's; on AVX-512 the stages run whole)
    (FULL, 1, 24, 56, 56, 144, 24, dict(ic=8, oc=8, ec=8)),
    (FULL, 1, 16, 57, 41, 96, 24, dict(stride=2, ic=8, oc=8, ec=8)),
    (FULL, 1, 16, 40, 40, 160, 16, dict(dilation=2, pad=(2, 2, 2, 2), ic=8, ec=8)),
    (("depthwise", "project"), 1, 32, 112, 112, 32, 16, dict(ic=8)),
    (("expand", "depthwise"), 2, 8, 45, 41, 160, 0, dict(stride=2, ic=8, ec=8)),
    (FULL, 1, 3, 161, 157, 32, 24, dict(ic=1, ek=3, estride=2, epad=(1, 1, 1, 1), oc=8, ec=8)),  # the stem
]


ED = ("expand", "depthwise")
SPLIT_CASES = [
    # expand + depthwise over planes banding leaves alone (the expanded tensor under 1 MB): the channel-split path
    (ED, 1, 96, 14, 14, 576, 0, {}),                      # MobileNetV2's 14x14 block: 36 blocks, in groups of 2
    (ED, 1, 96, 14, 14, 576, 0, dict(stride=2)),          # its stage boundary, 14x14 -> 7x7
    (ED, 2, 160, 7, 7, 960, 0, {}),                       # 7x7: 60 blocks; batch 2
    (ED, 1, 32, 28, 28, 192, 0, dict(stride=2)),          # 28x28 -> 14x14 (602 KB: not banded)
    (ED, 1, 24, 14, 14, 144, 0, dict(ic=8)),              # 9 blocks: an odd count; an 8-channel input block
    (ED, 2, 40, 13, 11, 368, 0, dict(stride=2, ic=8)),    # 23 blocks, odd sizes, batch 2
    (ED, 1, 16, 7, 7, 16, 0, {}),                         # one block
    (ED, 1, 16, 48, 48, 64, 0, {}),                       # a 147 KB block: groups of one
    (ED, 1, 64, 14, 14, 384, 0, dict(k=5, pad=(2, 2, 2, 2))),  # 5x5 (MobileNetV3, EfficientNet)
    (ED, 1, 64, 12, 12, 256, 0, dict(dilation=2, pad=(2, 2, 2, 2))),
    (ED, 1, 32, 14, 14, 192, 0, dict(stride=2, pad=(0, 0, 1, 1))),  # TF's "SAME" at stride 2
]


def banded_block(ec):
    """Whether the banded path should take ec-channel blocks through the chain on the ISA in use (AVX-512: 16, its
    vectors; AVX2: 8 or 16): the expectation the policy's answer is checked against."""
    isa = _get("topi.cpu_isa")()
    return (isa == "avx512" and ec == 16) or (isa == "avx2" and ec in (8, 16))


def chain_path(chain):
    """The path the chain kernel takes, by the policies it shares with the lowering: "banded", "split" (stages
    expand and depthwise, a 1x1 expand) or "stages" (the stage kernels whole)."""
    stages = tuple(chain.stages)
    if _get("topi.nn.depthwise_chain_band")(chain.e, chain.block("depthwise"), *chain.dw_in, *chain.out_shape[2:],
                                            (chain.k - 1) * chain.dilation, chain.stride, "expand" in stages,
                                            "project" in stages) > 0:
        return "banded"
    pointwise = (chain.ek, chain.estride, tuple(chain.epad)) == (1, 1, (0, 0, 0, 0))
    if stages == ED and pointwise and _get("topi.nn.depthwise_chain_split")(chain.x.shape[1], chain.e,
                                                                            *chain.dw_in) > 0:
        return "split"
    return "stages"


def case_id(case):
    stages, n, c, h, w, e, o, kw = case
    return "-".join(s[0] for s in stages) + f"-n{n}c{c}-{h}x{w}-e{e}o{o}" + "".join(f"-{k}{v}" for k, v in kw.items())


_REFERENCES = {}  # case id -> the float64 reference (the same for every ISA and thread count)


def check_chain(chain, case):
    """The chain's output: the stage kernels' bit for bit, and the float64 reference within float32 rounding."""
    got = chain.run_chain()
    np.testing.assert_array_equal(got, chain.run_stages())
    want = _REFERENCES.setdefault(case_id(case), chain.reference())
    np.testing.assert_allclose(unpack(got), want, rtol=0, atol=2e-5 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_chain_equals_stages_and_reference(case, isa, threads):
    stages, n, c, h, w, e, o, kw = case
    chain = Chain(np.random.default_rng(len(CASES)), stages, n, c, h, w, e, o, **kw)
    vector = _get("topi.cpu_isa")() in ("avx512", "avx2")
    # the path under test: banded on AVX-512 and AVX2 for their blocks (the small map runs its stages whole), else
    # the stage kernels
    assert chain_path(chain) == ("banded" if vector and h > 8 and banded_block(chain.block("depthwise")) else "stages")
    check_chain(chain, case)


@pytest.mark.parametrize("case", SPLIT_CASES, ids=[case_id(c) for c in SPLIT_CASES])
def test_split_chain_equals_stages_and_reference(case, isa, threads):
    stages, n, c, h, w, e, o, kw = case
    chain = Chain(np.random.default_rng(len(SPLIT_CASES)), stages, n, c, h, w, e, o, **kw)
    assert chain_path(chain) == ("split" if _get("topi.cpu_isa")() == "avx512" else "stages")
    check_chain(chain, case)


@pytest.mark.parametrize("epilogues", [
    {"project": "add r1 r0 in0; add r0 r1 in1"},                  # bias + residual: registers, at y's offsets
    {"project": "add r1 r0 in0; add r0 r1 in1; relu r0 r0"},
    {"project": "add r0 r0 in0; sigmoid r0 r0"},                  # the interpreter, on each band's rows
    {"expand": "add r0 r0 in0; silu r0 r0", "depthwise": "add r0 r0 in0; silu r0 r0"},  # EfficientNet's: the
    {"expand": "add r0 r0 in0; hard_swish r0 r0"},                # interpreter on each band's scratch rows
    {"expand": "add r0 r0 in0; add r0 r0 in1"},                   # a full-shape input: the stages run whole
    {"depthwise": "add r0 r0 in0; add r0 r0 in1"},
    {"expand": "", "depthwise": "relu r0 r0", "project": ""},
], ids=["residual", "residual-relu", "project-sigmoid", "silu", "hard-swish", "expand-full", "depthwise-full",
        "bare"])
@pytest.mark.parametrize("stages", [FULL, ED], ids=["e-d-p", "e-d"])  # 40x40x160: banded, split (1000 KB expanded)
def test_chain_epilogues(epilogues, stages, threads):
    if "project" not in stages:
        epilogues = {k: v for k, v in epilogues.items() if k != "project"}
    chain = Chain(np.random.default_rng(5), stages, 1, 16, 40, 40, 160, 32, epilogues=epilogues)
    isa = _get("topi.cpu_isa")()  # 1000 KB expanded: banded with project; without, split (AVX-512) or whole
    path = "banded" if "project" in stages and isa != "scalar" else "split" if isa == "avx512" else "stages"
    assert chain_path(chain) == path
    np.testing.assert_array_equal(chain.run_chain(), chain.run_stages())


@pytest.mark.parametrize("epilogues", [
    {"expand": "", "depthwise": ""},
    {"expand": "add r0 r0 in0; relu r0 r0", "depthwise": "relu r0 r0"},
    {"expand": "add r0 r0 in0; silu r0 r0", "depthwise": "add r0 r0 in0; silu r0 r0"},  # the interpreter: on each
    {"expand": "add r0 r0 in0; hard_swish r0 r0"},                # expanded plane in scratch, on out's rows
    {"expand": "add r0 r0 in0; add r0 r0 in1"},                   # a full-shape input: the stages run whole
    {"depthwise": "add r0 r0 in0; add r0 r0 in1"},                # read at out's offsets
    {"depthwise": "add r0 r0 in0; clip r0 r0 6 0"},               # lo > hi: not the rows' clamp
], ids=["bare", "relu", "silu", "hard-swish", "expand-full", "depthwise-full", "clip-inverted"])
@pytest.mark.parametrize("shape", [(1, 14, 576, 1), (2, 7, 960, 2)], ids=["14x14", "7x7-s2-n2"])
def test_split_chain_epilogues(epilogues, shape, isa, threads):
    n, size, e, stride = shape
    chain = Chain(np.random.default_rng(6), ED, n, 96, size, size, e, 0, stride=stride, epilogues=epilogues)
    np.testing.assert_array_equal(chain.run_chain(), chain.run_stages())


@pytest.mark.parametrize("threads_", [3, 4])
@pytest.mark.parametrize("n, e", [(1, 16), (1, 32), (2, 48), (1, 144)])
def test_split_chain_more_threads_than_blocks(n, e, threads_):
    set_threads = _get("runtime.set_num_threads")
    try:
        set_threads(threads_)
        chain = Chain(np.random.default_rng(7), ED, n, 24, 9, 9, e, 0, ic=8)
        np.testing.assert_array_equal(chain.run_chain(), chain.run_stages())
    finally:
        set_threads(0)


def test_split_policy(isa):
    split = _get("topi.nn.depthwise_chain_split")
    on = isa == "avx512" and _get("topi.cpu_isa")() == "avx512"
    # MobileNetV2's 14x14 and 7x7 blocks, its 28x28 -> 14x14 boundary: two blocks per item (25 KB, 6 KB, 104 KB)
    assert split(96, 576, 14, 14) == (2 if on else 0)
    assert split(160, 960, 7, 7) == (2 if on else 0)
    assert split(32, 192, 28, 28) == (2 if on else 0)
    assert split(16, 64, 48, 48) == (1 if on else 0)   # 147 KB a block: one per item
    assert split(16, 32, 70, 70) == 0                  # 313 KB a block: past the scratch
    assert split(24, 144, 56, 56) == 0                 # 1.8 MB: banding's
    assert split(96, 24, 14, 14) == 0                  # channels not in blocks of 16
    assert split(0, 576, 14, 14) == 0
    assert split(1 << 40, 1 << 40, 1 << 40, 1 << 40) == 0  # huge: no overflow
    with pytest.raises(ValueError, match="depthwise_chain_split"):
        split(96, -16, 14, 14)
    with pytest.raises(ValueError, match="depthwise_chain_split"):
        split(96, 576, (1 << 40) + 1, 14)


def test_band_policy(isa):
    band = _get("topi.nn.depthwise_chain_band")
    # MobileNetV2's 56x56 block: 1.8 MB intermediates, bands of a few rows on AVX-512 and AVX2; small maps are left
    # whole
    for block in (4, 8, 16, 32):
        got = band(144 if block != 32 else 160, block, 56, 56, 56, 56, 2, 1, True, True)
        if banded_block(block):
            assert 1 <= got < 56
            # huge: one row, no overflow
            assert band(1 << 30, block, 1 << 20, 1 << 20, 1 << 20, 1 << 20, 2, 1, True, True) == 1
        else:
            assert got == 0  # blocks the banded path has no rows for
        assert band(64, block, 14, 14, 14, 14, 2, 1, True, True) == 0
    with pytest.raises(ValueError, match="depthwise_chain_band"):
        band(-1, 16, 56, 56, 56, 56, 2, 1, True, True)
    with pytest.raises(ValueError, match="depthwise_chain_band"):
        band(144, -8, 56, 56, 56, 56, 2, 1, True, True)
    with pytest.raises(ValueError, match="stride_h"):
        band(16, 16, 56, 56, 56, 56, 2, 0, True, True)


@pytest.mark.parametrize("attrs, match", [
    ({"stages": "depthwise"}, "stages must be"),
    ({"stages": "project,depthwise,expand"}, "stages must be"),
    ({"stages": "expand,depthwise", "project.epilogue": ""}, "unknown attr 'project.epilogue'"),
    ({"stages": "expand,depthwise,project", "expand.groups": 2}, "expand stage must have one group"),
    ({"stages": "expand,depthwise,project", "project.strides": [2, 2]}, "project stage must be a 1x1"),
    ({"stages": "depthwise,project", "project.groups": 2}, "project stage must be a 1x1"),
    ({"stages": "depthwise,project", "depthwise.strides": [0, 1]}, KERNEL),
    ({"stages": "depthwise,project", "project.epilogue": "bogus r0 r0"}, KERNEL),
])
def test_bad_attrs(attrs, match):
    with pytest.raises(ValueError, match=match):
        _get(KERNEL)(attrs)


def test_bad_tensors():
    chain = Chain(np.random.default_rng(1), FULL, 1, 16, 20, 20, 32, 16)
    f = _get(KERNEL)(chain.attrs())
    args = chain.args()
    out = tvmlite.nd.empty(chain.packed_out_shape(), "float32")
    with pytest.raises(TypeError, match=KERNEL):
        f(*args[:3], out)
    with pytest.raises(TypeError, match=KERNEL):
        f(*args, args[0], out)
    bad = list(args)
    bad[3] = tvmlite.nd.array(np.zeros((2, 1, 3, 3, 1, 8), np.float32))  # depthwise weight of the wrong block
    with pytest.raises(ValueError, match="depthwise weight"):
        f(*bad, out)
    bad = list(args)
    bad[1] = tvmlite.nd.array(np.zeros((2, 1, 1, 1, 8, 16), np.float32))  # expand weight of another input block
    with pytest.raises(ValueError, match="expand weight"):
        f(*bad, out)
    with pytest.raises(ValueError, match="out"):
        f(*args, tvmlite.nd.empty((1, 1, 20, 19, 16), "float32"))
    with pytest.raises(ValueError, match="data"):
        f(tvmlite.nd.array(np.zeros((1, 16, 20, 20), np.float32)), *args[1:], out)
    with pytest.raises(TypeError, match=KERNEL):
        f(tvmlite.nd.array(np.zeros((1, 1, 20, 20, 16), np.float64)), *args[1:], out)


def test_absurd_intermediates_are_refused():
    # 65536 channels over a 1000x1000 image (262 GB between the stages), strided down to one output pixel
    f = _get(KERNEL)({"stages": "expand,depthwise", "depthwise.strides": [1000, 1000]})
    x = tvmlite.nd.empty((1, 1, 1000, 1000, 1), "float32")
    we = tvmlite.nd.empty((4096, 1, 1, 1, 1, 16), "float32")
    wd = tvmlite.nd.empty((4096, 1, 1, 1, 1, 16), "float32")
    with pytest.raises(ValueError, match="intermediate tensors"):
        f(x, we, wd, tvmlite.nd.empty((1, 4096, 1, 1, 16), "float32"))
