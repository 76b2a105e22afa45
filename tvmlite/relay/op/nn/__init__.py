"""``relay.nn``: neural-network ops."""
from .nn import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from . import _rnn  # noqa: F401  (registers the reference)
