"""Relay ops: builders (``relay.add``, ``relay.nn.conv2d``, ...), op lookup and reference registration.

Each family has a builder module (tensor.py, nn/nn.py, ...) and a module of numpy references (_tensor.py,
nn/_nn.py, ...) registered as the ops' "FReference" attribute when this package is imported.
"""
from .op import get, register_reference, get_reference
from .tensor import *  # noqa: F401,F403
from . import tensor as _tensor_builders
from . import nn
from . import image, vision, signal, text  # noqa: F401  (image/vision/signal/text ops)
from . import _tensor  # noqa: F401  (registers the references)

__all__ = ["get", "register_reference", "get_reference", "nn"] + list(_tensor_builders.__all__)
__all__ += ["image", "vision", "signal", "text"]
