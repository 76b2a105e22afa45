"""Relay ops: builders (``relay.add``, ``relay.nn.conv2d``, ...), op lookup and reference registration.

Each family has a builder module (tensor.py, nn/nn.py, ...) and a module of numpy references (_tensor.py,
nn/_nn.py, ...) registered as the ops' "FReference" attribute when this package is imported.
"""
from .op import get, register_reference, get_reference
from .tensor import *  # noqa: F401,F403
from . import tensor as _tensor_builders
from . import nn
from . import _tensor  # noqa: F401  (registers the references)
from .transform import *  # noqa: F401,F403
from . import transform as _transform_builders
from . import dyn  # noqa: F401
from . import _transform  # noqa: F401  (registers the references)
from .reduce import *  # noqa: F401,F403
from . import reduce as _reduce_builders
from . import _reduce  # noqa: F401
from .algorithm import *  # noqa: F401,F403
from . import algorithm as _algorithm_builders
from . import _algorithm  # noqa: F401
from .decode import tensor_scatter
from . import training
from . import ml
from .autodiff import collapse_sum_like, register_gradient
from .control import *  # noqa: F401,F403
from . import control as _control_builders
from . import _control  # noqa: F401  (registers the references)
from . import qnn
from . import _qnn  # noqa: F401  (registers the references)
from . import image, vision, signal, text  # noqa: F401  (image/vision/signal/text ops)
from .nn.norm import clip  # TVM's relay.clip
from .nn.nn import einsum  # TVM's relay.einsum
from .layout import layout_transform  # TVM's relay.layout_transform
from . import _layout  # noqa: F401  (registers the references of the layout ops)

__all__ = ["get", "register_reference", "get_reference", "nn", "training", "ml", "qnn", "tensor_scatter",
           "collapse_sum_like", "register_gradient"]
__all__ += list(_tensor_builders.__all__) + list(_transform_builders.__all__) + list(_control_builders.__all__)
__all__ += ["image", "vision", "signal", "text"]
__all__ += ["clip", "einsum"]
__all__ += ["layout_transform"]
__all__ += list(_reduce_builders.__all__) + list(_algorithm_builders.__all__)
