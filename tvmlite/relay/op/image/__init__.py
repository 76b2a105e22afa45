"""``relay.image``: resizing and sampling ops (image.resize, image.grid_sample, image.affine_grid)."""
from .image import *  # noqa: F401,F403
from . import _image, _decode  # noqa: F401  (registers the references)
