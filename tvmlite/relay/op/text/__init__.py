"""``relay.text``: text-feature ops (text.tfidf_vectorizer)."""
from .text import *  # noqa: F401,F403
from . import _text  # noqa: F401  (registers the references)
from .strings import *  # noqa: F401,F403
from . import _strings  # noqa: F401  (registers the references)
