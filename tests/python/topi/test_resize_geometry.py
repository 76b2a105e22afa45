"""Resize's output-size arithmetic (csrc/topi/image/resize_geometry.cc): the globals against the spec's numbers worked
by hand, the kernel topi.image.resize2d demanding exactly the shape they give, the Python wrappers
(resize_output_shape, static_output_size) and DynamicToStatic agreeing with them, and bad values as ValueErrors.
"""
import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay
from tvmlite.relay import transform
from tvmlite.relay.op.image._image import resize_output_shape, static_output_size

GEOMETRY = "topi.image.resize_output_shape"
STATIC = "topi.image.resize_static_output_size"
KERNEL = "topi.image.resize2d"


def geometry(shape, axes=(), roi=(), scales=(), sizes=(), policy="stretch", ctm="half_pixel"):
    out, scale = tvmlite.get_global_func(GEOMETRY)(list(shape), list(axes), list(roi), list(scales), list(sizes),
                                                   policy, ctm)
    return list(out), list(scale)


# (shape, axes, roi, scales, sizes, policy, ctm) -> (output shape, scale per dim), worked by hand from the spec.
CASES = [
    # not_larger: min(2/4, 50/5) = 0.5; 5 * 0.5 = 2.5 rounds half up to 3 (not to even)
    (([1, 1, 4, 5], [2, 3], (), (), [2, 50], "not_larger", "half_pixel"), ([1, 1, 2, 3], [1, 1, 0.5, 0.5])),
    # not_smaller: max(2/4, 1/5) = 0.5, the same rounding
    (([1, 1, 4, 5], [-2, -1], (), (), [2, 1], "not_smaller", "half_pixel"), ([1, 1, 2, 3], [1, 1, 0.5, 0.5])),
    # not_larger on 3 axes of 5: min(10/3, 9/4, 7/2) = 2.25; 3 * 2.25 = 6.75 -> 7, 4 * 2.25 = 9, 2 * 2.25 = 4.5 -> 5
    (([2, 3, 4, 5, 2], [1, 2, 4], (), (), [10, 9, 7], "not_larger", "half_pixel"),
     ([2, 7, 9, 5, 5], [1, 2.25, 2.25, 1, 2.25])),
    # scales are float32: 0.7 is 0.699999988..., so 10 * 0.7 floors to 6 (float64's 0.7 would give 7)
    (([10], [], (), [0.7], (), "stretch", "half_pixel"), ([6], [float(np.float32(0.7))])),
    # rank 5, every axis: floor(3 * 1.5) = 4, floor(5 * 2.2f) = 11
    (([1, 2, 3, 4, 5], [], (), [1, 1, 1.5, 0.5, 2.2], (), "stretch", "asymmetric"),
     ([1, 2, 4, 2, 11], [1, 1, 1.5, 0.5, float(np.float32(2.2))])),
    # rank 3 with tf_crop_and_resize: floor(10 * (0.8f - 0.2f) * 2) = 12, floor(20 * 0.5 * 0.5) = 5
    (([1, 10, 20], [1, 2], np.array([0.2, 0, 0.8, 0.5], np.float32).tolist(), [2, 0.5], (), "stretch",
      "tf_crop_and_resize"), ([1, 12, 5], [1, 2, 0.5])),
    # roi is read only under tf_crop_and_resize
    (([1, 10, 20], [1, 2], [0.2, 0, 0.8, 0.5], [2, 0.5], (), "stretch", "half_pixel"), ([1, 20, 10], [1, 2, 0.5])),
    # a 0-size dim: stretch sizes give it a size (its scale 0), scales keep it 0
    (([2, 0, 4], [1, 2], (), (), [3, 5], "stretch", "half_pixel"), ([2, 3, 5], [1, 0, 1.25])),
    (([0, 3, 4, 4], [], (), [1, 1, 2, 2], (), "stretch", "half_pixel"), ([0, 3, 8, 8], [1, 1, 2, 2])),
]


@pytest.mark.parametrize("args, want", CASES)
def test_spec_arithmetic(args, want):
    shape, axes, roi, scales, sizes, policy, ctm = args
    assert geometry(shape, axes, roi, scales, sizes, policy, ctm) == (want[0], want[1])  # floats exactly
    # The Python wrapper returns the same, with the scales of the resized axes only.
    out, resized, scale = resize_output_shape(shape, list(axes), roi, scales or None, sizes or None, policy, ctm)
    assert out == want[0]
    assert scale == [want[1][a] for a in resized]


@pytest.mark.parametrize("args, want", [c for c in CASES if len(c[0][0]) == 4 and c[0][6] != "tf_crop_and_resize"])
def test_kernel_demands_the_same_shape(args, want):
    """The kernel (rank 4, no crop) takes an output of exactly that shape and refuses one a dim larger."""
    shape, axes, _, scales, sizes, policy, _ = args
    f = tvmlite.get_global_func(KERNEL)({"axes": list(axes), "keep_aspect_ratio_policy": policy})
    nd = tvmlite.nd.array
    inputs = [nd(np.zeros(shape, np.float32)), nd(np.zeros(0, np.float32)), nd(np.asarray(scales, np.float32)),
              nd(np.asarray(sizes, np.int64))]
    f(*inputs, tvmlite.nd.empty(want[0], "float32"))
    wider = list(want[0])
    wider[-1] += 1
    with pytest.raises(ValueError, match=KERNEL + r": out must have shape \(" + ", ".join(map(str, want[0]))):
        f(*inputs, tvmlite.nd.empty(wider, "float32"))


def test_kernel_and_geometry_agree_over_random_sizes():
    """Sizes and scales drawn at random: the kernel accepts the global's shape every time."""
    rng = np.random.default_rng(7)
    nd = tvmlite.nd.array
    for _ in range(60):
        shape = [int(d) for d in rng.integers(1, 9, size=4)]
        policy = str(rng.choice(["stretch", "not_larger", "not_smaller"]))
        if rng.random() < 0.5:
            sizes, scales = [int(s) for s in rng.integers(1, 20, size=2)], []
        else:
            sizes, scales = [], [float(s) for s in rng.uniform(0.1, 4, size=2).astype(np.float32)]
        want, _ = geometry(shape, [2, 3], (), scales, sizes, policy)
        f = tvmlite.get_global_func(KERNEL)({"axes": [2, 3], "keep_aspect_ratio_policy": policy})
        f(nd(np.ones(shape, np.float32)), nd(np.zeros(0, np.float32)), nd(np.asarray(scales, np.float32)),
          nd(np.asarray(sizes, np.int64)), tvmlite.nd.empty(want, "float32"))


@pytest.mark.parametrize("args, message", [
    (([1, 1, 4, 4], [], (), [2, 2], ()), "scales has 2 values for 4 resized axes"),
    (([1, 1, 4, 4], [2, 3], (), (), [2, 2, 2]), "sizes has 3 values for 2 resized axes"),
    (([1, 1, 4, 4], [], (), (), ()), "one of scales and sizes must be given"),
    (([1, 1, 4, 4], [], (), [1, 1, -2, 2], ()), "scales must be positive and finite, got -2"),
    (([1, 1, 4, 4], [], (), [1, 1, 0, 2], ()), "scales must be positive and finite, got 0"),
    (([1, 1, 4, 4], [], (), [1, 1, float("nan"), 2], ()), "scales must be positive and finite, got nan"),
    (([1, 1, 4, 4], [], (), [1, 1, float("inf"), 2], ()), "scales must be positive and finite, got inf"),
    (([1, 1, 4, 4], [], (), [1, 1, 1e39, 2], ()), "scales must be positive and finite, got 1e\\+39"),
    (([1, 1, 4, 4], [], (), [1, 1, 1e-50, 2], ()), "scales must be positive and finite, got 1e-50"),
    (([1, 1, 2 ** 62, 4], [], (), [1, 1, 3, 1], ()), "the output size of axis 2 would be 1.38351e\\+19"),
    (([1, 1, 4, 4], [], (), (), [1, 1, -3, 4]), "the output size of axis 2 would be -3"),
    (([1, 1, 4, 4], [4], (), [2], ()), "axes must be distinct axes of 4-D data, got 4"),
    (([1, 1, 4, 4], [2, -2], (), [2, 2], ()), "axes must be distinct axes of 4-D data, got -2"),
    (([1, -1, 4, 4], [], (), [1, 1, 2, 2], ()), "shape must have non-negative dims, got -1"),
])
def test_bad_input_is_a_value_error(args, message):
    shape, axes, roi, scales, sizes = args
    with pytest.raises(ValueError, match=GEOMETRY + ": " + message):
        geometry(shape, axes, roi, scales, sizes)


@pytest.mark.parametrize("kwargs, message", [
    ({"sizes": [2, 3], "policy": "not_larger"}, "keep_aspect_ratio_policy needs every resized dim > 0, axis 2 is 0"),
    ({"sizes": [2, 3], "policy": "fit"}, "keep_aspect_ratio_policy 'fit' is not supported"),
    ({"scales": [2, 2], "roi": [0, 0, 1], "ctm": "tf_crop_and_resize"},
     "roi has 3 values, expected 4 for tf_crop_and_resize"),
    ({"scales": [2, 2], "roi": [0, 0.5, 1, 0.25], "ctm": "tf_crop_and_resize"},
     "the output size of axis 3 would be -4"),
])
def test_bad_policy_and_roi(kwargs, message):
    with pytest.raises(ValueError, match=GEOMETRY + ": " + message):
        geometry([1, 1, 0, 8], [2, 3], **kwargs)


def test_static_output_size_with_symbolic_dims():
    """-1 (None in Python) is a symbolic dim: what depends on it stays -1, and nothing is static when the common
    scale of a keep-aspect policy needs it or tf_crop_and_resize has no known roi."""
    static = tvmlite.get_global_func(STATIC)
    assert list(static([-1, 3, 4, 5], [], None, [1, 1, 2, 2.5], None, "stretch", "half_pixel")) == [-1, 3, 8, 12]
    assert list(static([-1, 3, -1, 5], [2, 3], None, None, [7, 9], "stretch", "half_pixel")) == [-1, -1, 7, 9]
    assert static([1, 3, -1, 5], [2, 3], None, None, [7, 9], "not_larger", "half_pixel") is None
    assert static([1, 3, 4, 5], [], None, [1, 1, 2, 2], None, "stretch", "tf_crop_and_resize") is None
    assert static([1, 3, 4, 5], [], None, None, None, "stretch", "half_pixel") is None
    # An empty sizes falls back to scales; an empty roi does not crop.
    assert list(static([1, 3, 4, 5], [], [], [1, 1, 2, 2], [], "stretch", "tf_crop_and_resize")) == [1, 3, 8, 10]
    assert static_output_size([None, 3, 4, 5], [2, 3], None, None, np.array([2, 2]), "not_smaller",
                              "half_pixel") == [-1, -1, 2, 3]
    assert static_output_size([1, 3, None, 5], [2, 3], None, None, np.array([2, 2]), "not_smaller",
                              "half_pixel") == ()
    with pytest.raises(ValueError, match=STATIC + ": scales has 3 values for 4 resized axes"):
        static([-1, 3, 4, 5], [], None, [1, 2, 2], None, "stretch", "half_pixel")


def _resize_module(shape, scales=None, sizes=None, **attrs):
    x = relay.var("x", shape=shape, dtype="float32")
    return transform.InferType()(ir.IRModule.from_expr(relay.Function([x], relay.image.resize(
        x, scales=scales, sizes=sizes, **attrs))))


def test_dynamic_to_static_uses_the_same_rule():
    """DynamicToStatic sets output_size from constant scales / sizes as the global does, a symbolic batch kept;
    values the op rejects, or a keep-aspect policy over a symbolic resized dim, leave the call dynamic."""
    cases = [
        ([1, 1, 4, 5], dict(sizes=[2, 50], axes=[2, 3], keep_aspect_ratio_policy="not_larger"), [1, 1, 2, 3]),
        ([ir.SizeVar("n"), 3, 10], dict(scales=[1, 1, 0.7]), None),
        ([2, 3, 10], dict(scales=[1, 1, 0.7]), [2, 3, 6]),
    ]
    for shape, attrs, want in cases:
        mod = transform.DynamicToStatic()(_resize_module(shape, **attrs))
        ty = mod["main"].body.checked_type
        if want is None:
            assert ty.shape[2] == 6 and not isinstance(ty.shape[0], int)
        else:
            assert list(ty.shape) == want
    for shape, attrs in [([1, 1, 4, 4], dict(scales=[1, 1, -2, 2])),
                         ([1, 1, 4, 4], dict(scales=[2, 2])),
                         ([1, 1, 0, 4], dict(sizes=[2, 2], axes=[2, 3], keep_aspect_ratio_policy="not_larger"))]:
        mod = transform.DynamicToStatic()(_resize_module(shape, **attrs))
        assert list(mod["main"].body.attrs.output_size) == []
