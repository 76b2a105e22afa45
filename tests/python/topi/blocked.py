"""The blocked activation layout NCHW{c}c in numpy, for kernel tests that pack their inputs as the layout pass does."""
import numpy as np


def pack(x, c):
    """NCHW -> NCHW{c}c, (N, C/c, H, W, c)."""
    n, ch, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, ch // c, c, h, w).transpose(0, 1, 3, 4, 2))


def unpack(y):
    """NCHW{c}c -> NCHW."""
    n, cb, h, w, c = y.shape
    return y.transpose(0, 1, 4, 2, 3).reshape(n, cb * c, h, w)
