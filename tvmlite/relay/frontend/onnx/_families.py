"""Every op-family module of the ONNX frontend; importing one registers its converters."""
from . import elemwise  # noqa: F401
from . import image  # noqa: F401
from . import vision  # noqa: F401
from . import signal  # noqa: F401
from . import text  # noqa: F401
