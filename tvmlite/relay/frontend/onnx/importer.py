"""The ONNX graph importer: ModelProto -> (IRModule, params).

Steps: read the model (a path or a ModelProto); pick the opset per domain; scan every node (subgraphs included)
for ops without a converter and raise one OpNotImplemented listing them all; make typed Vars for graph inputs
(user shapes win) and params (or constants, when frozen) for initializers; convert nodes in order, typing each
result as it is made (so converters see their inputs' shapes); collect the graph outputs in order.
"""
import numpy as np

from ....error import OpError, OpNotImplemented
from ....ir.module import IRModule
from ....ir.type import OptionalType, SequenceType, SizeVar, TensorType
from ... import expr as _expr
from ...backend.dtypes import to_numpy_dtype
from .common import get_convert_map, registered_ops

__all__ = ["GraphImporter", "from_onnx"]


def _onnx():
    import onnx

    return onnx


def tensor_dtype(elem_type):
    """The IR dtype string of an ONNX TensorProto element type."""
    onnx = _onnx()
    np_dtype = onnx.helper.tensor_dtype_to_np_dtype(elem_type)
    name = np.dtype(np_dtype).name
    return "string" if name == "object" else name


class GraphImporter:
    """Converts one model; also the ConverterContext its converters get."""

    def __init__(self, model, shape=None, dtype="float32", opset=None, freeze_params=False):
        self.model = model
        self.user_shapes = dict(shape or {})
        self.default_dtype = dtype
        self.freeze_params = freeze_params
        self.opsets = {imp.domain or "": imp.version for imp in model.opset_import}
        if opset is not None:
            self.opsets[""] = int(opset)
        self.opset = self.opsets.get("", self.opsets.get("ai.onnx", 1))
        self.params = {}
        self.node = None
        self._infer = None
        self._dims = {}

    # -- ConverterContext ---------------------------------------------------------------------------------------
    def infer_type(self, expr):
        if self._infer is None:
            from ..._ffi_api import __getattr__ as _relay_api

            self._infer = _relay_api("_transform.InferTypeExpr")
        return self._infer(expr)

    def try_constant(self, expr):
        """expr's value as a numpy array when it is a Constant (folding of larger graphs comes later)."""
        if isinstance(expr, _expr.Constant):
            return expr.data.numpy()
        return None

    def new_var(self, name, type_annotation):
        return _expr.Var(name, type_annotation)

    def convert_subgraph(self, graph, input_types=None, as_tuple=False):
        """A subgraph (GraphProto attribute) as a relay Function in the current scope (subgraph.py)."""
        from .subgraph import convert_subgraph

        return convert_subgraph(self, graph, input_types, as_tuple)

    # -- import ---------------------------------------------------------------------------------------------
    def check_supported(self, graph):
        missing = {}
        stack = [graph]
        while stack:
            g = stack.pop()
            for node in g.node:
                domain = node.domain or ""
                if domain == "ai.onnx":
                    domain = ""
                table = get_convert_map(self.opsets.get(domain, self.opset), domain)
                if node.op_type not in table:
                    known = node.op_type in registered_ops(domain)
                    why = "opset older than every converter" if known else "no converter"
                    missing.setdefault((domain or "ai.onnx", node.op_type), why)
                for a in node.attribute:
                    if a.type == a.GRAPH:
                        stack.append(a.g)
                    stack.extend(a.graphs)
        if missing:
            items = ", ".join(f"{op} (domain {dom}, opset {self.opsets.get('' if dom == 'ai.onnx' else dom, '?')}: "
                              f"{why})" for (dom, op), why in sorted(missing.items()))
            raise OpNotImplemented(f"the model uses {len(missing)} unsupported op(s): {items}")

    def value_type(self, value_info):
        """The IR type of a graph input (or subgraph input): tensor, sequence or optional; user shapes win."""
        return self.type_proto_type(value_info.type, value_info.name)

    def type_proto_type(self, t, name):
        """The IR type of an onnx TypeProto: a tensor without a shape is a DynTensorType (rank unknown)."""
        from ....ir.type import DynTensorType

        kind = t.WhichOneof("value")
        if kind == "sequence_type":
            return SequenceType(self.type_proto_type(t.sequence_type.elem_type, name))
        if kind == "optional_type":
            return OptionalType(self.type_proto_type(t.optional_type.elem_type, name))
        if kind != "tensor_type":
            raise OpNotImplemented(f"graph input '{name}': values of kind {kind} are not supported")
        dtype = tensor_dtype(t.tensor_type.elem_type) if t.tensor_type.elem_type else self.default_dtype
        if name in self.user_shapes:
            dims = list(self.user_shapes[name])
        elif not t.tensor_type.HasField("shape"):
            return DynTensorType(dtype)
        else:
            dims = []
            for d in t.tensor_type.shape.dim:
                if d.HasField("dim_value"):
                    dims.append(int(d.dim_value))
                elif d.dim_param:
                    dims.append(self._dims.setdefault(d.dim_param, SizeVar(d.dim_param)))
                else:
                    dims.append(SizeVar("?"))
        return TensorType(dims, dtype)

    def convert(self):
        onnx = _onnx()
        graph = self.model.graph
        self.check_supported(graph)
        symbols = {}
        init_names = set()
        inputs = []
        for init in graph.initializer:
            array = onnx.numpy_helper.to_array(init)
            init_names.add(init.name)
            if self.freeze_params:
                symbols[init.name] = _expr.const(array, dtype=array.dtype.name if array.dtype.kind != "O" else None)
            else:
                self.params[init.name] = array
                v = _expr.Var(init.name, TensorType(array.shape, array.dtype.name))
                symbols[init.name] = v
        for vi in graph.input:
            if vi.name in init_names:
                continue
            v = _expr.Var(vi.name, self.value_type(vi))
            symbols[vi.name] = v
            inputs.append(v)
        params_vars = [symbols[n] for n in self.params]
        for node in graph.node:
            self.convert_node(node, symbols)
        outputs = []
        for out in graph.output:
            if out.name not in symbols:
                raise ValueError(f"graph output '{out.name}' is produced by no node")
            outputs.append(symbols[out.name])
        body = outputs[0] if len(outputs) == 1 else _expr.Tuple(outputs)
        func = _expr.Function(inputs + params_vars, body)
        return IRModule.from_expr(func), {k: v for k, v in self.params.items()}

    def convert_node(self, node, symbols):
        onnx = _onnx()
        domain = "" if node.domain in ("", "ai.onnx") else node.domain
        converter = get_convert_map(self.opsets.get(domain, self.opset), domain)[node.op_type]
        inputs = []
        for name in node.input:
            if name == "":
                inputs.append(None)
            elif name not in symbols:
                raise ValueError(f"node {node.name or node.op_type} ({node.op_type}): input '{name}' is produced "
                                 f"by no earlier node, initializer or graph input")
            else:
                inputs.append(symbols[name])
        while inputs and inputs[-1] is None:
            inputs.pop()
        attr = {a.name: _attribute_value(onnx, a) for a in node.attribute}
        self.node = node
        self.scope = symbols  # the names a subgraph of this node may use (convert_subgraph)
        try:
            result = converter(inputs, attr, self)
            outs = list(result) if isinstance(result, (list, tuple)) else [result]
            outs = [self.infer_type(o) if o is not None else None for o in outs]
        except OpError:
            raise
        except Exception as err:
            label = f"node {node.name!r} ({node.op_type})" if node.name else f"node {node.op_type}"
            raise type(err)(f"{label}: {err}") from err
        for name, value in zip(node.output, outs):
            if name and value is not None:
                symbols[name] = value


def _attribute_value(onnx, a):
    kind = a.type
    A = onnx.AttributeProto
    if kind == A.FLOAT:
        return float(a.f)
    if kind == A.INT:
        return int(a.i)
    if kind == A.STRING:
        return a.s.decode("utf-8", "surrogateescape")
    if kind == A.TENSOR:
        return onnx.numpy_helper.to_array(a.t)
    if kind == A.GRAPH:
        return a.g
    if kind == A.FLOATS:
        return [float(x) for x in a.floats]
    if kind == A.INTS:
        return [int(x) for x in a.ints]
    if kind == A.STRINGS:
        return [s.decode("utf-8", "surrogateescape") for s in a.strings]
    if kind == A.TENSORS:
        return [onnx.numpy_helper.to_array(t) for t in a.tensors]
    if kind == A.GRAPHS:
        return list(a.graphs)
    if kind == A.TYPE_PROTO:
        return a.tp
    raise OpNotImplemented(f"attribute '{a.name}' of an unknown kind {kind}")


def from_onnx(model, shape=None, dtype="float32", opset=None, freeze_params=False):
    """Convert an ONNX model (a ModelProto or a path) to (IRModule, params).

    Initializers become params (numpy arrays, by name) and inputs of main, or constants when ``freeze_params``;
    graph inputs that are not initializers become typed Vars (``shape`` overrides their shapes by name);
    outputs keep the graph's order (a tuple when there are several).
    """
    onnx = _onnx()
    if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
        model = onnx.load(model)
    if not isinstance(model, onnx.ModelProto):
        raise TypeError(f"from_onnx: model must be an onnx.ModelProto or a path, got {type(model).__name__}")
    return GraphImporter(model, shape, dtype, opset, freeze_params).convert()
