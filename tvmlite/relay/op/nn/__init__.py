"""``relay.nn``: neural-network ops."""
from .nn import *  # noqa: F401,F403
from . import _nn  # noqa: F401  (registers the references of the conv / pool / matmul ops)
