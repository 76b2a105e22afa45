"""Every op-family module of the ONNX frontend; importing one registers its converters."""
from . import elemwise  # noqa: F401
from . import math  # noqa: F401
from . import decode  # noqa: F401
from . import training  # noqa: F401
