"""``relay.signal``: spectral ops (signal.dft, signal.stft, signal.window, signal.mel_weight_matrix)."""
from .signal import *  # noqa: F401,F403
from . import _signal  # noqa: F401  (registers the references)
