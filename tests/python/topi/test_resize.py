"""topi.image.resize2d (csrc/topi/image/resize.cc) against image.resize's numpy reference.

The kernel takes the op's four inputs (data, roi, scales, sizes) and a preallocated output; every mode, nearest
rounding and coordinate transformation the kernel serves is swept over upsampling, downsampling, fractional and
1-pixel cases, with scales and with sizes (each keep_aspect_ratio_policy), with 1 and 2 threads and a fused
epilogue. What the kernel does not serve is refused when it is made, so the lowering can fall back.
"""
import itertools
from types import SimpleNamespace

import numpy as np
import pytest

import tvmlite
from tvmlite.ir import Op
from tvmlite.relay.op.op import get_reference

NAME = "topi.image.resize2d"
CTMS = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
        "half_pixel_symmetric"]
NEAREST_MODES = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]


def _attrs(**kw):
    attrs = dict(mode="nearest", coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_floor",
                 cubic_coeff_a=-0.75, exclude_outside=0, antialias=0, keep_aspect_ratio_policy="stretch", axes=[])
    attrs.update(kw)
    return attrs


def check(x, attrs, scales=(), sizes=(), epilogue=None, extra=()):
    roi = np.array([], np.float32)
    scales = np.asarray(scales, np.float32)
    sizes = np.asarray(sizes, np.int64)
    ref = get_reference("image.resize")(SimpleNamespace(extrapolation_value=0.0, output_size=[], **attrs), x, roi,
                                         scales, sizes).astype(np.float64)
    kernel_attrs = dict(attrs)
    if epilogue:
        kernel_attrs["epilogue"] = epilogue[0]
        ref = epilogue[1](ref)
    out = tvmlite.nd.empty(ref.shape, "float32")
    f = tvmlite.get_global_func(NAME)(kernel_attrs)
    f(*[tvmlite.nd.array(a) for a in (x, roi, scales, sizes, *extra)], out)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=2e-5)
    return out.numpy()


SCALES = [[1, 1, 2, 2], [1, 1, 0.5, 1.7], [1, 1, 3, 1], [1, 1, 0.6, 0.34]]
SIZES_HW = [(5, 7), (8, 8), (1, 3), (9, 2)]


@pytest.mark.parametrize("ctm", CTMS)
@pytest.mark.parametrize("nearest_mode", NEAREST_MODES)
def test_nearest(rng, ctm, nearest_mode):
    for hw, scales in itertools.product(SIZES_HW, SCALES):
        x = rng.standard_normal((2, 3) + hw).astype(np.float32)
        check(x, _attrs(coordinate_transformation_mode=ctm, nearest_mode=nearest_mode), scales=scales)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
@pytest.mark.parametrize("ctm", CTMS)
@pytest.mark.parametrize("exclude_outside", [0, 1])
def test_linear_cubic(rng, mode, ctm, exclude_outside):
    for hw, scales in itertools.product(SIZES_HW, SCALES):
        x = rng.standard_normal((2, 3) + hw).astype(np.float32)
        check(x, _attrs(mode=mode, coordinate_transformation_mode=ctm, exclude_outside=exclude_outside),
              scales=scales)


def test_cubic_coeff_a(rng):
    x = rng.standard_normal((1, 2, 6, 5)).astype(np.float32)
    check(x, _attrs(mode="cubic", cubic_coeff_a=-0.5, coordinate_transformation_mode="align_corners"),
          scales=[1, 1, 2.5, 1.5])


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
@pytest.mark.parametrize("policy", ["stretch", "not_larger", "not_smaller"])
def test_sizes(rng, threads, mode, policy):
    x = rng.standard_normal((2, 4, 7, 10)).astype(np.float32)
    check(x, _attrs(mode=mode, keep_aspect_ratio_policy=policy, axes=[2, 3]), sizes=[15, 12])
    check(x, _attrs(mode=mode, keep_aspect_ratio_policy=policy, axes=[-1, -2]), sizes=[4, 3])
    if policy == "stretch":
        check(x, _attrs(mode=mode), sizes=[2, 4, 14, 5])


def test_identity_axes(rng):
    """An axis of the same size and scale 1 is left alone, as in the reference (align_corners included)."""
    x = rng.standard_normal((1, 3, 9, 6)).astype(np.float32)
    for mode, ctm in itertools.product(["nearest", "linear", "cubic"], CTMS):
        ref = check(x, _attrs(mode=mode, coordinate_transformation_mode=ctm), scales=[1, 1, 1, 1])
        np.testing.assert_array_equal(ref, x)
        check(x, _attrs(mode=mode, coordinate_transformation_mode=ctm), scales=[1, 1, 1, 2])
        check(x, _attrs(mode=mode, coordinate_transformation_mode=ctm), sizes=[1, 3, 9, 4])


def test_upsample_large(rng, threads):
    x = rng.standard_normal((2, 16, 19, 23)).astype(np.float32)
    check(x, _attrs(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"), scales=[1, 1, 2, 2])
    check(x, _attrs(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
          scales=[1, 1, 2, 2])


def test_epilogue(rng, threads):
    x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    bias = rng.standard_normal((1, 3, 1, 1)).astype(np.float32)
    check(x, _attrs(mode="linear"), scales=[1, 1, 2, 2],
          epilogue=("add r0 r0 in0; clip r0 r0 0 6", lambda r: np.clip(r + bias, 0, 6)), extra=(bias,))


@pytest.mark.parametrize("attrs,message", [
    ({"coordinate_transformation_mode": "tf_crop_and_resize"}, "coordinate_transformation_mode "
                                                               "'tf_crop_and_resize' is not supported"),
    ({"mode": "linear", "antialias": 1}, "antialias is not supported for linear resizing"),
    ({"mode": "cubic", "antialias": 1}, "antialias is not supported for cubic resizing"),
    ({"mode": "area"}, "mode 'area' is not supported"),
    ({"nearest_mode": "round"}, "nearest_mode 'round' is not supported"),
    ({"keep_aspect_ratio_policy": "fit"}, "keep_aspect_ratio_policy 'fit' is not supported"),
    ({"axes": [4]}, "axes must be distinct axes of 4-D data, got 4"),
    ({"axes": [2, -2]}, "axes must be distinct axes of 4-D data, got -2"),
    ({"epilogue": "add r0"}, ""),
    ({"output_size": [2, 3, 8]}, "only 4-D"),
])
def test_bad_attrs(attrs, message):
    with pytest.raises((ValueError, TypeError), match=NAME + ": " + message):
        tvmlite.get_global_func(NAME)(_attrs(**attrs))


def test_antialias_nearest_is_served(rng):
    """The reference's nearest ignores antialias, so the kernel serves it."""
    x = rng.standard_normal((1, 2, 8, 8)).astype(np.float32)
    check(x, _attrs(antialias=1), scales=[1, 1, 0.5, 0.5])


def test_bad_input():
    f = tvmlite.get_global_func(NAME)(_attrs())
    nd = tvmlite.nd.array
    x = np.zeros((1, 2, 4, 4), np.float32)
    roi = np.array([], np.float32)
    scales = np.array([1, 1, 2, 2], np.float32)
    none_i = np.array([], np.int64)
    none_f = np.array([], np.float32)
    out = tvmlite.nd.empty((1, 2, 8, 8), "float32")
    with pytest.raises(TypeError, match=NAME + ": data must be float32"):
        f(nd(x.astype(np.float64)), nd(roi), nd(scales), nd(none_i), out)
    with pytest.raises(ValueError, match=NAME + ": data must have 4 dimensions"):
        f(nd(x[0]), nd(roi), nd(scales[1:]), nd(none_i), out)
    with pytest.raises(ValueError, match=NAME + r": out must have shape \(1, 2, 8, 8\)"):
        f(nd(x), nd(roi), nd(scales), nd(none_i), tvmlite.nd.empty((1, 2, 8, 7), "float32"))
    with pytest.raises(ValueError, match=NAME + ": one of scales and sizes must be given"):
        f(nd(x), nd(roi), nd(none_f), nd(none_i), out)
    with pytest.raises(ValueError, match=NAME + ": scales has 2 values for 4 resized axes"):
        f(nd(x), nd(roi), nd(scales[2:].copy()), nd(none_i), out)
    with pytest.raises(ValueError, match=NAME + ": scales must be positive"):
        f(nd(x), nd(roi), nd(np.array([1, 1, -2, 2], np.float32)), nd(none_i), out)
    with pytest.raises(TypeError, match=NAME + ": sizes must be int64"):
        f(nd(x), nd(roi), nd(none_f), nd(np.array([1, 2, 8, 8], np.int32)), out)
    with pytest.raises(ValueError, match=NAME + r": resizing axis 1 \(channels\) is not supported"):
        f(nd(x), nd(roi), nd(none_f), nd(np.array([1, 4, 8, 8], np.int64)), tvmlite.nd.empty((1, 4, 8, 8), "float32"))
    with pytest.raises(TypeError, match=NAME + ": expected at least 5 tensor arguments"):
        f(nd(x), nd(roi), nd(scales), out)


def test_op_names_its_kernel():
    assert Op.get("image.resize").get_attr("FTVMLiteKernel") == NAME
