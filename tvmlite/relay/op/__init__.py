"""Relay ops: builders (``relay.add``, ``relay.nn.conv2d``, ...), op lookup and reference registration.

Each family has a builder module (tensor.py, nn/nn.py, ...) and a module of numpy references (_tensor.py,
nn/_nn.py, ...) registered as the ops' "FReference" attribute when this package is imported.
"""
from .op import get, register_reference, get_reference
from .tensor import *  # noqa: F401,F403
from . import tensor as _tensor_builders
from . import nn
from . import _tensor  # noqa: F401  (registers the references)
from .reduce import *  # noqa: F401,F403
from . import reduce as _reduce_builders
from . import _reduce  # noqa: F401
from .algorithm import *  # noqa: F401,F403
from . import algorithm as _algorithm_builders
from . import _algorithm  # noqa: F401
from .decode import tensor_scatter
from . import training

__all__ = ["get", "register_reference", "get_reference", "nn", "training", "tensor_scatter"] + list(_tensor_builders.__all__)
__all__ += list(_reduce_builders.__all__)
__all__ += list(_algorithm_builders.__all__)
