"""Every op-family module of the ONNX frontend; importing one registers its converters."""
from . import basic  # noqa: F401
from . import elemwise  # noqa: F401
