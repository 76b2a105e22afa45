"""``relay.vision``: detection ops (vision.roi_align, vision.non_max_suppression)."""
from .vision import *  # noqa: F401,F403
from . import _vision  # noqa: F401  (registers the references)
