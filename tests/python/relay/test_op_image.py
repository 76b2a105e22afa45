"""image.*, vision.* and signal.* ops: builders, type relations (static, symbolic, errors) and executor results
checked against numpy computations written here."""
import numpy as np
import pytest

import tvmlite
from tvmlite import relay


def infer(expr, params):
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function(params, expr)))
    return mod["main"].body.checked_type


def run(expr, params, *arrays):
    mod = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function(params, expr)))
    lib = tvmlite.build(mod, target="debug")
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    for p, a in zip(params, arrays):
        gm.set_input(p.name_hint, a)
    gm.run()
    return gm.get_output(0).numpy()


def shape_of(t):
    return [d if isinstance(d, int) else str(d) for d in t.shape]


# -- image.resize -----------------------------------------------------------------------------------------------
def test_resize_nearest_integer_scale_is_repeat():
    x = relay.var("x", shape=(1, 2, 2, 3))
    y = relay.image.resize(x, scales=[1, 1, 2, 3], coordinate_transformation_mode="asymmetric",
                           nearest_mode="floor", output_size=(1, 2, 4, 9))
    data = np.random.RandomState(0).rand(1, 2, 2, 3).astype("float32")
    out = run(y, [x], data)
    np.testing.assert_array_equal(out, np.repeat(np.repeat(data, 2, axis=2), 3, axis=3))


def test_resize_linear_align_corners():
    x = relay.var("x", shape=(3,))
    y = relay.image.resize(x, sizes=[5], mode="linear", coordinate_transformation_mode="align_corners",
                           output_size=(5,))
    out = run(y, [x], np.array([0.0, 2.0, 10.0], dtype="float32"))
    np.testing.assert_allclose(out, [0.0, 1.0, 2.0, 6.0, 10.0], rtol=1e-6)


def test_resize_linear_half_pixel_1d():
    # half_pixel: x_orig = (i + 0.5) / 2 - 0.5 -> -0.25, 0.25, 0.75, 1.25 (edge-clamped at the borders)
    x = relay.var("x", shape=(2,))
    y = relay.image.resize(x, scales=[2.0], mode="linear")
    out = run(y, [x], np.array([1.0, 3.0], dtype="float32"))
    np.testing.assert_allclose(out, [1.0, 1.5, 2.5, 3.0], rtol=1e-6)


def test_resize_axes_keep_other_dims_and_symbolic():
    n = relay.SizeVar("n")
    x = relay.var("x", shape=(n, 3, 8, 8))
    t = infer(relay.image.resize(x, scales=[0.5, 0.5], axes=[2, 3]), [x])
    assert shape_of(t)[:2] == ["n", 3]
    assert all(d == "?" for d in shape_of(t)[2:])
    t = infer(relay.image.resize(x, scales=[0.5, 0.5], axes=[-2, -1], output_size=(-1, 3, 4, 4)), [x])
    assert shape_of(t) == ["n", 3, 4, 4]


def test_resize_sizes_not_larger_at_run_time():
    x = relay.var("x", shape=(1, 1, 4, 6))
    sizes = relay.var("sizes", shape=(2,), dtype="int64")
    y = relay.image.resize(x, sizes=sizes, axes=[2, 3], keep_aspect_ratio_policy="not_larger")
    out = run(y, [x, sizes], np.ones((1, 1, 4, 6), "float32"), np.array([2, 6], dtype="int64"))
    assert out.shape == (1, 1, 2, 3)  # scale min(2/4, 6/6) = 0.5 on both axes


@pytest.mark.parametrize("kwargs, message", [
    (dict(mode="area"), "mode must be one of nearest, linear, cubic, got 'area'"),
    (dict(axes=[4]), "axis 4 is out of range for data of rank 4"),
    (dict(axes=[1, -3]), "axis -3 is listed twice in axes"),
    (dict(output_size=(1, 2)), "output_size has 2 entries for data of rank 4"),
    (dict(coordinate_transformation_mode="center"), "coordinate_transformation_mode must be one of"),
])
def test_resize_errors(kwargs, message):
    x = relay.var("x", shape=(1, 3, 4, 4))
    with pytest.raises(tvmlite.TVMLiteError, match=message.replace("(", r"\(").replace(")", r"\)")):
        infer(relay.image.resize(x, scales=[2.0, 2.0], **kwargs), [x])


def test_resize_bad_scales_rank():
    x = relay.var("x", shape=(1, 3, 4, 4))
    s = relay.var("s", shape=(2, 2))
    with pytest.raises(ValueError, match=r"scales must be 1-D, got shape \(2, 2\)"):
        infer(relay.image.resize(x, scales=s), [x, s])


# -- image.grid_sample / image.affine_grid -------------------------------------------------------------------
def _identity_grid(h, w, align_corners):
    if align_corners:
        ys, xs = np.linspace(-1, 1, h), np.linspace(-1, 1, w)
    else:
        ys, xs = (2 * np.arange(h) + 1) / h - 1, (2 * np.arange(w) + 1) / w - 1
    gy, gx = np.meshgrid(ys, xs, indexing="ij")
    return np.stack([gx, gy], axis=-1)[None].astype("float32")


@pytest.mark.parametrize("mode", ["linear", "nearest", "cubic"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_grid_sample_identity(mode, align_corners):
    data = np.random.RandomState(1).rand(1, 2, 3, 4).astype("float32")
    x = relay.var("x", shape=data.shape)
    g = relay.var("g", shape=(1, 3, 4, 2))
    out = run(relay.image.grid_sample(x, g, mode=mode, align_corners=align_corners), [x, g], data,
              _identity_grid(3, 4, align_corners))
    np.testing.assert_allclose(out, data, rtol=1e-5, atol=1e-6)


def test_grid_sample_padding_modes():
    data = np.array([[[[1.0, 2.0], [3.0, 4.0]]]], dtype="float32")
    x = relay.var("x", shape=(1, 1, 2, 2))
    g = relay.var("g", shape=(1, 1, 1, 2))
    far = np.array([[[[3.0, -3.0]]]], dtype="float32")  # far right of the top row
    for padding, expected in [("zeros", 0.0), ("border", 2.0)]:
        out = run(relay.image.grid_sample(x, g, mode="nearest", padding_mode=padding, align_corners=True),
                  [x, g], data, far)
        assert out.shape == (1, 1, 1, 1) and out[0, 0, 0, 0] == expected


def test_grid_sample_types():
    n = relay.SizeVar("n")
    x = relay.var("x", shape=(n, 3, 8, 8, 8))
    g = relay.var("g", shape=(n, 2, 5, 7, 3))
    assert shape_of(infer(relay.image.grid_sample(x, g), [x, g])) == ["n", 3, 2, 5, 7]
    g2 = relay.var("g2", shape=(n, 5, 7, 2))
    with pytest.raises(ValueError, match="grid must have the data's rank 5"):
        infer(relay.image.grid_sample(x, g2), [x, g2])
    g3 = relay.var("g3", shape=(n, 2, 5, 7, 2))
    with pytest.raises(ValueError, match="last dim must be the spatial rank 3"):
        infer(relay.image.grid_sample(x, g3), [x, g3])
    with pytest.raises(ValueError, match="padding_mode must be one of zeros, border, reflection"):
        infer(relay.image.grid_sample(x, g, padding_mode="wrap"), [x, g])


def test_affine_grid_identity_and_types():
    theta = relay.var("theta", shape=(2, 2, 3))
    y = relay.image.affine_grid(theta, [2, 1, 3, 4], align_corners=True)
    assert shape_of(infer(y, [theta])) == [2, 3, 4, 2]
    eye = np.tile(np.array([[1, 0, 0], [0, 1, 0]], "float32"), (2, 1, 1))
    out = run(y, [theta], eye)
    np.testing.assert_allclose(out[0], _identity_grid(3, 4, True)[0], rtol=1e-6)
    size = relay.var("size", shape=(4,), dtype="int64")
    assert shape_of(infer(relay.image.affine_grid(theta, size), [theta, size])) == [2, "?", "?", 2]
    bad = relay.var("bad", shape=(2, 3, 3))
    with pytest.raises(ValueError, match=r"theta must be \(N, 2, 3\) or \(N, 3, 4\), got shape \(2, 3, 3\)"):
        infer(relay.image.affine_grid(bad, [2, 1, 3, 4]), [bad])
    with pytest.raises(ValueError, match="size must hold 4 values"):
        infer(relay.image.affine_grid(theta, [2, 1, 3, 4, 5]), [theta])


# -- vision -------------------------------------------------------------------------------------------------------
def test_roi_align_constant_image_and_types():
    data = np.full((2, 3, 8, 8), 5.0, dtype="float32")
    data[1] = 7.0
    x = relay.var("x", shape=data.shape)
    rois = relay.var("rois", shape=(2, 4))
    idx = relay.var("idx", shape=(2,), dtype="int64")
    y = relay.vision.roi_align(x, rois, idx, output_height=2, output_width=3, sampling_ratio=2)
    assert shape_of(infer(y, [x, rois, idx])) == [2, 3, 2, 3]
    out = run(y, [x, rois, idx], data, np.array([[1, 1, 5, 5], [0, 0, 7, 7]], "float32"), np.array([0, 1]))
    np.testing.assert_allclose(out[0], 5.0, rtol=1e-6)
    np.testing.assert_allclose(out[1], 7.0, rtol=1e-6)
    bad = relay.var("bad", shape=(2, 5))
    with pytest.raises(ValueError, match=r"rois must be \(num_rois, 4\), got shape \(2, 5\)"):
        infer(relay.vision.roi_align(x, bad, idx), [x, bad, idx])
    idx3 = relay.var("idx3", shape=(3,), dtype="int64")
    with pytest.raises(ValueError, match="disagree on num_rois"):
        infer(relay.vision.roi_align(x, rois, idx3), [x, rois, idx3])


def test_roi_align_linear_ramp():
    # Bilinear samples of a ramp f(y, x) = x are exact: an output bin's average is the bin centre's x.
    data = np.tile(np.arange(8, dtype="float32"), (1, 1, 8, 1))
    x = relay.var("x", shape=data.shape)
    rois = relay.var("rois", shape=(1, 4))
    idx = relay.var("idx", shape=(1,), dtype="int64")
    y = relay.vision.roi_align(x, rois, idx, output_height=1, output_width=2, sampling_ratio=2,
                               coordinate_transformation_mode="output_half_pixel")
    out = run(y, [x, rois, idx], data, np.array([[2, 2, 6, 6]], "float32"), np.array([0]))
    np.testing.assert_allclose(out.reshape(-1), [3.0, 5.0], rtol=1e-6)


def test_non_max_suppression():
    boxes = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 5, 1, 6], [0, 5.05, 1, 6.05]]], "float32")
    scores = np.array([[[0.9, 0.8, 0.7, 0.95], [0.1, 0.2, 0.3, 0.05]]], "float32")
    b = relay.var("b", shape=boxes.shape)
    s = relay.var("s", shape=scores.shape)
    y = relay.vision.non_max_suppression(b, s, max_output_boxes_per_class=3, iou_threshold=0.5,
                                         score_threshold=0.15)
    t = infer(y, [b, s])
    assert shape_of(t) == ["?", 3] and str(t.dtype) == "int64"
    out = run(y, [b, s], boxes, scores)
    # class 0: 3 (0.95) suppresses 2, then 0 (0.9) suppresses 1; class 1: 2 (0.3), 1 (0.2) - they do not overlap
    np.testing.assert_array_equal(out, [[0, 0, 3], [0, 0, 0], [0, 1, 2], [0, 1, 1]])
    bad = relay.var("bad", shape=(1, 2, 3))
    with pytest.raises(ValueError, match="box counts differ"):
        infer(relay.vision.non_max_suppression(b, bad), [b, bad])


# -- signal -------------------------------------------------------------------------------------------------------
def test_dft_matches_numpy():
    sig = np.random.RandomState(2).rand(2, 6, 3, 1).astype("float64")
    x = relay.var("x", shape=sig.shape, dtype="float64")
    y = relay.signal.dft(x, axis=1)
    assert shape_of(infer(y, [x])) == [2, 6, 3, 2]
    out = run(y, [x], sig)
    ref = np.fft.fft(sig[..., 0], axis=1)
    np.testing.assert_allclose(out[..., 0] + 1j * out[..., 1], ref, rtol=1e-10, atol=1e-12)
    y = relay.signal.dft(x, dft_length=8, axis=1, onesided=True)
    assert shape_of(infer(y, [x])) == [2, 5, 3, 2]
    out = run(y, [x], sig)
    np.testing.assert_allclose(out[..., 0] + 1j * out[..., 1], np.fft.rfft(sig[..., 0], n=8, axis=1), atol=1e-12)


def test_dft_inverse_onesided_and_symbolic_axis():
    spec = np.fft.rfft(np.arange(8.0))
    data = np.stack([spec.real, spec.imag], axis=-1)[None].astype("float64")  # (1, 5, 2)
    x = relay.var("x", shape=data.shape, dtype="float64")
    y = relay.signal.dft(x, axis=1, inverse=True, onesided=True)
    assert shape_of(infer(y, [x])) == [1, 8, 1]
    np.testing.assert_allclose(run(y, [x], data)[0, :, 0], np.arange(8.0), atol=1e-12)
    axis = relay.var("axis", shape=(), dtype="int64")
    assert shape_of(infer(relay.signal.dft(x, axis=axis), [x, axis])) == [1, 5, 2]
    assert shape_of(infer(relay.signal.dft(x, axis=axis, onesided=True, inverse=True), [x, axis])) == ["?", "?", 1]
    with pytest.raises(ValueError, match=r"axis 2 is out of range \[-3, -2\] U \[0, 1\]"):
        infer(relay.signal.dft(x, axis=2), [x])


def test_stft_matches_manual_frames():
    sig = np.random.RandomState(3).rand(1, 20, 1).astype("float64")
    win = np.hanning(8)
    x = relay.var("x", shape=sig.shape, dtype="float64")
    w = relay.var("w", shape=(8,), dtype="float64")
    y = relay.signal.stft(x, 4, window=w)
    assert shape_of(infer(y, [x, w])) == [1, 4, 5, 2]
    out = run(y, [x, w], sig, win)
    for f in range(4):
        ref = np.fft.rfft(sig[0, 4 * f: 4 * f + 8, 0] * win)
        np.testing.assert_allclose(out[0, f, :, 0] + 1j * out[0, f, :, 1], ref, atol=1e-12)
    bad = relay.var("bad", shape=(1, 20))
    with pytest.raises(ValueError, match=r"signal must be \(batch, length, 1\|2\)"):
        infer(relay.signal.stft(bad, 4), [bad])


@pytest.mark.parametrize("kind, periodic, ref", [
    ("hann", False, np.hanning(7)),
    ("hann", True, np.hanning(8)[:-1]),
    ("blackman", False, np.blackman(7)),
    ("hamming", False, 25 / 46 - 21 / 46 * np.cos(2 * np.pi * np.arange(7) / 6)),
])
def test_windows(kind, periodic, ref):
    size = relay.var("size", shape=(), dtype="int64")
    y = relay.signal.window(size, kind=kind, periodic=periodic, dtype="float64")
    assert shape_of(infer(y, [size])) == ["?"]
    np.testing.assert_allclose(run(y, [size], np.array(7)), ref, atol=1e-12)
    assert shape_of(infer(relay.signal.window(7, kind=kind), [])) == [7]


def test_window_errors():
    with pytest.raises(ValueError, match="kind must be hann, hamming or blackman, got 'kaiser'"):
        infer(relay.signal.window(4, kind="kaiser"), [])


def test_mel_weight_matrix_triangles():
    y = relay.signal.mel_weight_matrix(8, 64, 16000, 0.0, 8000.0)
    t = infer(y, [])
    assert shape_of(t) == [33, 8] and str(t.dtype) == "float32"
    m = run(y, [])
    assert m.min() >= 0 and np.allclose(m.max(axis=0), 1.0)
    # Each filter is one triangle: non-zero on one contiguous run of bins, rising then falling.
    for col in m.T:
        nz = np.nonzero(col)[0]
        assert np.all(np.diff(nz) == 1)
        peak = int(np.argmax(col))
        assert np.all(np.diff(col[nz[0]: peak + 1]) >= 0) and np.all(np.diff(col[peak: nz[-1] + 1]) <= 0)


# -- text ---------------------------------------------------------------------------------------------------------
def test_tfidf_vectorizer_counts_skip_grams():
    # pool: 1-grams [5], [7]; 2-grams [5, 7], [7, 5] -> columns 0..3
    x = relay.var("x", shape=(2, 5), dtype="int32")
    y = relay.text.tfidf_vectorizer(x, ngram_counts=[0, 2], ngram_indexes=[0, 1, 2, 3], pool_int64s=[5, 7, 5, 7, 7, 5],
                                    min_gram_length=1, max_gram_length=2, max_skip_count=1)
    t = infer(y, [x])
    assert shape_of(t) == [2, 4] and str(t.dtype) == "float32"
    data = np.array([[5, 7, 5, 1, 7], [1, 1, 1, 1, 1]], dtype="int32")
    out = run(y, [x], data)
    # row 0: 5 x2, 7 x2; stride 1: (5,7) (7,5) (5,1) (1,7); stride 2: (5,5) (7,1) (5,7) -> [5,7] x2, [7,5] x1
    np.testing.assert_array_equal(out, [[2, 2, 2, 1], [0, 0, 0, 0]])
    idf = relay.text.tfidf_vectorizer(x, ngram_counts=[0, 2], ngram_indexes=[0, 1, 2, 3],
                                      pool_int64s=[5, 7, 5, 7, 7, 5], mode="IDF", min_gram_length=1,
                                      max_gram_length=2, max_skip_count=1, weights=[1.0, 0.5, 2.0, 3.0])
    np.testing.assert_allclose(run(idf, [x], data)[0], [1.0, 0.5, 2.0, 3.0])


def test_tfidf_vectorizer_errors():
    x = relay.var("x", shape=(5,), dtype="int64")
    with pytest.raises(ValueError, match="the pool holds 2 n-grams but ngram_indexes has 3"):
        infer(relay.text.tfidf_vectorizer(x, [0], [0, 1, 2], [4, 5]), [x])
    with pytest.raises(ValueError, match="are not whole 2-grams"):
        infer(relay.text.tfidf_vectorizer(x, [0, 1], [0, 1], [4, 5, 6, 7], max_gram_length=2), [x])
    f = relay.var("f", shape=(5,))
    with pytest.raises(TypeError, match="data must hold integer tokens, got float32"):
        infer(relay.text.tfidf_vectorizer(f, [0], [0], [4]), [f])


# -- image.decode -------------------------------------------------------------------------------------------------
def _png_bytes(img, filters):
    """A PNG (8-bit RGBA) of img (H, W, 4), row y encoded with filters[y] (0-4), written here independently."""
    import struct
    import zlib

    h, w, _ = img.shape
    raw = b""
    prev = np.zeros(w * 4, dtype=np.int64)
    for y in range(h):
        cur = img[y].reshape(-1).astype(np.int64)
        left = np.concatenate([np.zeros(4, np.int64), cur[:-4]])
        ul = np.concatenate([np.zeros(4, np.int64), prev[:-4]])
        f = filters[y]
        if f == 0:
            pred = np.zeros_like(cur)
        elif f == 1:
            pred = left
        elif f == 2:
            pred = prev
        elif f == 3:
            pred = (left + prev) >> 1
        else:
            p = left + prev - ul
            pa, pb, pc = np.abs(p - left), np.abs(p - prev), np.abs(p - ul)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, ul))
        raw += bytes([f]) + ((cur - pred) & 0xFF).astype(np.uint8).tobytes()
        prev = cur

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_decode_png_every_filter():
    img = np.random.RandomState(4).randint(0, 256, size=(5, 3, 4)).astype("uint8")
    stream = np.frombuffer(_png_bytes(img, [0, 1, 2, 3, 4]), dtype="uint8")
    x = relay.var("x", shape=(stream.size,), dtype="uint8")
    t = infer(relay.image.decode(x), [x])
    assert shape_of(t) == ["?", "?", 3] and str(t.dtype) == "uint8"
    np.testing.assert_array_equal(run(relay.image.decode(x), [x], stream), img[..., :3])
    np.testing.assert_array_equal(run(relay.image.decode(x, "BGR"), [x], stream), img[..., 2::-1])


def test_decode_pnm_grey_and_corrupt_stream():
    grey = np.arange(12, dtype="uint8").reshape(3, 4) * 20
    stream = np.frombuffer(b"P5\n# a comment\n4 3\n255\n" + grey.tobytes(), dtype="uint8")
    x = relay.var("x", shape=(stream.size,), dtype="uint8")
    np.testing.assert_array_equal(run(relay.image.decode(x, "Grayscale"), [x], stream)[..., 0], grey)
    junk = np.frombuffer(b"not an image at all", dtype="uint8")
    y = relay.var("y", shape=(junk.size,), dtype="uint8")
    assert run(relay.image.decode(y), [y], junk).shape == (0, 0, 3)
    f = relay.var("f", shape=(8,))
    with pytest.raises(TypeError, match="the encoded stream must be uint8, got float32"):
        infer(relay.image.decode(f), [f])


def test_decode_tiff_big_endian_grey_two_strips():
    import struct

    grey = (np.arange(12, dtype="uint8").reshape(4, 3) * 7).astype("uint8")
    pixels = grey.tobytes()
    entries = [(256, 3, 1, 3), (257, 3, 1, 4), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, 2, None), (277, 3, 1, 1), (278, 3, 1, 2), (279, 4, 2, None)]
    ifd_at = 8
    extra_at = ifd_at + 2 + 12 * len(entries) + 4
    data_at = extra_at + 16
    offsets = struct.pack(">II", data_at, data_at + 6)
    counts = struct.pack(">II", 6, 6)
    ifd = struct.pack(">H", len(entries))
    for tag, kind, n, value in entries:
        if tag == 273:
            ifd += struct.pack(">HHII", tag, kind, n, extra_at)
        elif tag == 279:
            ifd += struct.pack(">HHII", tag, kind, n, extra_at + 8)
        else:
            ifd += struct.pack(">HHIH", tag, kind, n, value) + b"\x00\x00"
    stream = b"MM\x00*" + struct.pack(">I", ifd_at) + ifd + b"\x00" * 4 + offsets + counts + pixels
    arr = np.frombuffer(stream, dtype="uint8")
    x = relay.var("x", shape=(arr.size,), dtype="uint8")
    out = run(relay.image.decode(x), [x], arr)
    np.testing.assert_array_equal(out, np.repeat(grey[..., None], 3, axis=2))
