"""runtime.set_flush_denormals: kernels (and the pool threads running their chunks) flush subnormal floats to zero
only while it is on; off, results keep them; the caller's own float mode is never changed."""
import numpy as np
import pytest

import tvmlite

_get = tvmlite.get_global_func
TINY = np.float32(1e-40)  # subnormal in float32


@pytest.fixture
def flush():
    set_flush = _get("runtime.set_flush_denormals")
    assert _get("runtime.flush_denormals")() is False  # the default (TVMLITE_FLUSH_DENORMALS unset)
    try:
        yield set_flush
    finally:
        set_flush(False)


def _times_one(x):
    out = tvmlite.nd.empty(x.shape, "float32")
    _get("topi.elemwise")({"epilogue": "mul r0 in0 1"})(tvmlite.nd.array(x), out)
    return out.numpy()


def test_flush_denormals_on_every_thread(flush, threads):
    x = np.full(200_000, TINY, np.float32)  # large enough to be cut into chunks for the pool's threads
    np.testing.assert_array_equal(_times_one(x), x)
    flush(True)
    assert _get("runtime.flush_denormals")() is True
    assert not _times_one(x).any()  # every chunk, the workers' too, flushed
    assert np.float32(TINY * np.float32(1)) == TINY  # the caller's mode is restored after the call
    flush(False)
    np.testing.assert_array_equal(_times_one(x), x)  # and the workers' after their chunks


def test_normal_values_are_untouched(flush):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(10_000).astype(np.float32)
    flush(True)
    np.testing.assert_array_equal(_times_one(x), x)
