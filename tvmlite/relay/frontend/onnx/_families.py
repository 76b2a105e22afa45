"""Every op-family module of the ONNX frontend; importing one registers its converters."""
from . import basic  # noqa: F401
from . import elemwise  # noqa: F401
from . import math  # noqa: F401
from . import decode  # noqa: F401
from . import training  # noqa: F401
from . import ml  # noqa: F401
from . import norm  # noqa: F401
from . import control  # noqa: F401
from . import sequence  # noqa: F401
from . import rnn  # noqa: F401
from . import quantize  # noqa: F401
from . import nn  # noqa: F401
from . import shape  # noqa: F401
from . import image  # noqa: F401
from . import vision  # noqa: F401
from . import signal  # noqa: F401
from . import text  # noqa: F401
