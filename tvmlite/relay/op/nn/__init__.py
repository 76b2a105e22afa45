"""``relay.nn``: neural-network ops."""
from .nn import *  # noqa: F401,F403
from .decode import *  # noqa: F401,F403
from . import _decode  # noqa: F401  (registers the references)
from .norm import *  # noqa: F401,F403
from . import _norm  # noqa: F401  (registers the references)
from .rnn import *  # noqa: F401,F403
from . import _rnn  # noqa: F401  (registers the reference)
from . import _nn  # noqa: F401  (registers the references of the conv / pool / matmul ops)
from .dense_pack import *  # noqa: F401,F403  (contrib_dense_pack; registers its reference)
from .transform import *  # noqa: F401,F403
from .conv2d_nchwc import *  # noqa: F401,F403
from .conv2d_winograd import *  # noqa: F401,F403  (registers the references)
