"""``relay.nn``: neural-network ops."""
from .nn import *  # noqa: F401,F403
from .transform import *  # noqa: F401,F403
