"""The ONNX frontend: ``from_onnx(model) -> (IRModule, params)``; converters live in one module per op family."""
from .importer import from_onnx
from .common import OnnxOpConverter, AttrCvt, Renamer, register_converter, get_convert_map

__all__ = ["from_onnx", "OnnxOpConverter", "AttrCvt", "Renamer", "register_converter", "get_convert_map"]
