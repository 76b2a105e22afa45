"""``relay.nn``: neural-network ops."""
from .nn import *  # noqa: F401,F403
from .decode import *  # noqa: F401,F403
from . import _decode  # noqa: F401  (registers the references)
