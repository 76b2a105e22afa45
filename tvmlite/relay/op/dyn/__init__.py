"""``relay.op.dyn``: the dynamic forms of shape ops (dyn.reshape, dyn.strided_slice, ...), built through the
builders in ``relay.op.transform`` when a shape-like argument is an expression."""
from . import _make  # noqa: F401
from . import nn  # noqa: F401
