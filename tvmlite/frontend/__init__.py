"""``tvmlite.frontend``: the model importers (an alias of tvmlite.relay.frontend)."""
from ..relay.frontend import from_onnx

__all__ = ["from_onnx"]
