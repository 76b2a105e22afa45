"""``relay.op.dyn.nn``: dynamic forms of nn ops (dyn.nn.pad)."""
from . import _make  # noqa: F401
