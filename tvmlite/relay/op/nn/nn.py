"""Neural-network op builders: ``relay.nn.relu(x)``, ... (csrc/relay/op/nn/)."""
from . import _make

__all__ = ["relu"]


def relu(data):
    """Rectified linear unit: max(data, 0)."""
    return _make.relu(data)
