"""The ONNX graph importer: ModelProto -> (IRModule, params).

Steps, each of which fails with one clear error before the next begins:

1. read the model (a ModelProto, a path, or serialized bytes); a file that is not an ONNX model is a ValueError
   naming it. Tensors whose data is in external files read it only from inside the model's folder (``base_dir``;
   a model from bytes or a ModelProto has none unless the caller names one: tensor_data.py);
2. check the model's structure: an opset_import for the default domain (and for every domain a node uses),
   every node input produced by an earlier node, an initializer or a graph input, no name produced twice, every
   graph output produced. The error names the node;
3. scan every node, subgraphs in attributes included, for ops without a converter at the model's opset, and
   raise ONE OpNotImplemented listing them all (op, domain, opset);
4. make typed Vars for graph inputs (``value_type``: user shapes win) and params (or Constants, when frozen) for
   initializers;
5. convert the nodes in order. Each converter gets typed inputs; its results are typed at once (so the next
   converter sees their shapes) and folded when they are computable at import time (see fold.py): a result
   whose inputs are all constants, or whose value depends only on its inputs' static types (Shape, Size), of at
   most FOLD_LIMIT elements, becomes a Constant. Any failure inside a converter or its type relation is
   re-raised with the node's name and op type in front of the original message;
6. collect the graph outputs in graph order (a Tuple when there are several).

Subgraphs (If/Loop/Scan bodies) are converted by ``convert_subgraph`` (subgraph.py), through the same
``convert_nodes`` / ``convert_node`` machinery over a nested symbol table.
"""
from __future__ import annotations

import collections
import math
import os
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from ....error import OpAttributeInvalid, OpNotImplemented, get_error_class, with_context
from ....ir.module import IRModule
from ....ir.type import OptionalType, SequenceType, SizeVar, TensorType
from ... import expr as _expr
from ...backend.dtypes import from_numpy_dtype
from .common import ConverterContext, get_convert_map, registered_ops
from .fold import ConstantFolder
from .input_dims import dims_fixed_by_weights
from .tensor_data import read_tensor
from .validate import (attribute_kind, check_declared_type, check_input_types, check_nodes, check_opsets, kind_name,
                       schema_of)

if TYPE_CHECKING:
    import onnx

__all__ = ["GraphImporter", "from_onnx", "tensor_dtype", "FOLD_LIMIT", "within_fold_limit"]

FOLD_LIMIT = 1 << 20  # elements: larger import-time constants are left as expressions


def within_fold_limit(shape):
    """Whether a value of this shape may become a Constant at import: static, at most FOLD_LIMIT elements (a
    hostile model's Expand or ConstantOfShape must not allocate gigabytes while it is read). The one test of the
    limit: the importer's folding and a converter that computes a value itself (Range) both ask it."""
    return all(isinstance(d, int) for d in shape) and math.prod(shape) <= FOLD_LIMIT

ValueError_ = get_error_class("ValueError")  # tvmlite.error.ValueError: a TVMLiteError and a ValueError
TypeError_ = get_error_class("TypeError")


def _onnx():
    import onnx

    return onnx


def tensor_dtype(elem_type):
    """The IR dtype string of an ONNX TensorProto element type."""
    onnx = _onnx()
    try:
        np_dtype = onnx.helper.tensor_dtype_to_np_dtype(elem_type)
    except (KeyError, ValueError):
        raise ValueError_(f"unknown ONNX element type {elem_type}") from None
    name = np.dtype(np_dtype).name
    return "string" if name == "object" else name


def node_label(node):
    """How errors name a node: ``node 'conv1' (Conv)``, or ``node (Conv) producing 'y'`` when it has no name."""
    if node.name:
        return f"node {node.name!r} ({node.op_type})"
    outputs = [o for o in node.output if o]
    if not outputs:
        return f"node ({node.op_type}) producing nothing"
    more = f" (+{len(outputs) - 1} more)" if len(outputs) > 1 else ""
    return f"node ({node.op_type}) producing {outputs[0]!r}{more}"


class _Label:
    """node_label(node), computed only when an error message formats it."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def __str__(self):
        return node_label(self.node)

    __format__ = lambda self, spec: format(str(self), spec)  # noqa: E731


def _norm_domain(domain):
    return "" if domain in ("", "ai.onnx") else domain


def _with_node(err, label):
    """err with ``label: `` in front of its message, keeping its class (tvmlite.error.with_context)."""
    return with_context(err, str(label))


class GraphImporter(ConverterContext):
    """Converts one model; also the ConverterContext its converters get."""

    def __init__(self, model, shape=None, dtype=None, opset=None, freeze_params=False, base_dir=None):
        self.model = model
        self.base_dir = base_dir  # where external tensor data may be read from (None: nowhere)
        self.user_shapes = dict(shape or {})
        self.default_dtype = dtype
        self.freeze_params = freeze_params
        self.opsets = {}
        for imp in model.opset_import:
            self.opsets[_norm_domain(imp.domain)] = int(imp.version)
        if opset is not None:
            self.opsets[""] = int(opset)
        self.opset = self.opsets.get("")  # None: no node may use the default domain (check_structure)
        self.params = {}
        self.node = None  # the NodeProto being converted
        self.scope = None  # the symbol table (name -> expr) of the node being converted: its subgraphs' outer scope
        self._infer = None
        self._dims = {}
        self._fixed_dims = {}  # dim_param -> the value the weights fix it to (input_dims.py)
        self._param_vars = {}  # param Var -> initializer name
        self._folder = ConstantFolder(self.infer_type)

    # -- ConverterContext ---------------------------------------------------------------------------------------
    def infer_type(self, expr):
        if self._infer is None:
            from ..._ffi_api import __getattr__ as _relay_api

            self._infer = _relay_api("_transform.InferTypeExpr")
        return self._infer(expr)

    def try_constant(self, expr):
        """expr's value as a numpy array when it is computable at import time (its leaves are Constants, or it
        depends only on static types: Shape of a static tensor), else None. Params are run-time inputs (the user
        may replace them): an expression that reads one has no value here; ``freeze_params=True`` makes them
        Constants."""
        if expr is None:
            return None
        if isinstance(expr, _expr.Constant):
            return expr.data.numpy()
        value = self._folder.value(expr)
        if value is None:
            return None
        if within_fold_limit(value.shape):
            return value.copy()  # the caller may edit it: the cached value (or a param) must not change
        view = value.view()
        view.flags.writeable = False
        return view

    def read_tensor(self, tensor, what):
        """A TensorProto's value (numpy); external data only from inside base_dir (tensor_data.py)."""
        return read_tensor(tensor, self.base_dir, what)

    def new_var(self, name, type_annotation):
        return _expr.Var(name, type_annotation)

    def convert_subgraph(self, graph, input_types=None, as_tuple=False):
        """A subgraph (GraphProto attribute) as a relay Function in the current scope (subgraph.py)."""
        from .subgraph import convert_subgraph

        return convert_subgraph(self, graph, input_types, as_tuple)

    # -- checks -----------------------------------------------------------------------------------------------
    def check_structure(self, graph):
        """Names: each node input defined before use, no name produced twice, every graph output produced."""
        producer = {}
        for init in graph.initializer:
            if init.name in producer:
                raise ValueError_(f"initializer '{init.name}' is defined twice")
            producer[init.name] = "an initializer"
        for vi in graph.input:
            if vi.name in producer and producer[vi.name] != "an initializer":
                raise ValueError_(f"graph input '{vi.name}' is listed twice")
            producer.setdefault(vi.name, "a graph input")
        for node in graph.node:
            label = _Label(node)
            domain = _norm_domain(node.domain)
            if domain not in self.opsets:
                if not domain:
                    raise ValueError_(f"{label}: the model has no opset_import for the default ONNX domain (ai.onnx), "
                                      f"so the op's version is unknown; pass opset=N to from_onnx")
                raise ValueError_(f"{label}: its domain '{node.domain}' has no opset_import entry in the model")
            for name in node.input:
                if name and name not in producer:
                    raise ValueError_(f"{label}: input '{name}' is produced by no earlier node, initializer or "
                                      f"graph input")
            for name in node.output:
                if not name:
                    continue
                if name in producer:
                    first = producer[name]
                    raise ValueError_(f"{label}: output '{name}' is already produced by "
                                      f"{first if isinstance(first, str) else node_label(first)}")
                producer[name] = node
        seen = set()
        for out in graph.output:
            if out.name not in producer:
                raise ValueError_(f"graph output '{out.name}' is produced by no node, initializer or graph input")
            if out.name in seen:
                raise ValueError_(f"graph output '{out.name}' is listed twice")
            seen.add(out.name)

    def check_supported(self, graph):
        """Raise one OpNotImplemented naming every op (subgraphs included) that has no converter."""
        missing = collections.OrderedDict()
        stack = [graph]
        while stack:
            g = stack.pop()
            for node in g.node:
                domain = _norm_domain(node.domain)
                opset = self.opsets.get(domain)
                table = get_convert_map(opset, domain) if opset is not None else {}
                if node.op_type not in table:
                    if opset is None:
                        why = "domain not imported"
                    elif node.op_type in registered_ops(domain):
                        versions = registered_ops(domain)[node.op_type].versions()
                        why = f"converters start at opset {versions[0]}" if versions else "no converter"
                    else:
                        why = "no converter"
                    key = (node.op_type, domain or "ai.onnx", opset)
                    entry = missing.setdefault(key, [why, 0])
                    entry[1] += 1
                for a in node.attribute:
                    if a.type == a.GRAPH:
                        stack.append(a.g)
                    stack.extend(a.graphs)
        if missing:
            items = []
            for (op, dom, opset), (why, count) in sorted(missing.items(), key=lambda kv: (kv[0][1], kv[0][0])):
                nodes = f", {count} nodes" if count > 1 else ""
                items.append(f"{op} ({dom} opset {opset if opset is not None else '?'}: {why}{nodes})")
            err = OpNotImplemented(f"{len(missing)} unsupported ONNX op{'s' if len(missing) > 1 else ''}: "
                                   + ", ".join(items))
            err.ops = [key for key in missing]
            raise err

    # -- inputs -------------------------------------------------------------------------------------------------
    def value_type(self, value_info):
        """The IR type of a graph input (or subgraph input): tensor, sequence or optional; user shapes win. The one
        place input types are made."""
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
        if dtype is None:
            raise ValueError_(f"graph input '{name}' declares no element type, which ONNX requires (onnxruntime "
                              f"refuses such a model); pass dtype= to from_onnx to assume one")
        if name in self.user_shapes:
            dims = []
            for d in self.user_shapes[name]:
                if isinstance(d, str):
                    dims.append(self._dims.setdefault(d, SizeVar(d)))
                elif isinstance(d, SizeVar):
                    dims.append(d)
                elif d is None or (isinstance(d, (int, np.integer)) and d < 0):
                    dims.append(SizeVar("?"))
                else:
                    dims.append(int(d))
        elif not t.tensor_type.HasField("shape"):
            return DynTensorType(dtype)
        else:
            dims = []
            for d in t.tensor_type.shape.dim:
                if d.HasField("dim_value") and d.dim_value >= 0:
                    dims.append(int(d.dim_value))
                elif d.dim_param in self._fixed_dims:
                    dims.append(self._fixed_dims[d.dim_param])
                elif d.dim_param:
                    dims.append(self._dims.setdefault(d.dim_param, SizeVar(d.dim_param)))
                else:
                    dims.append(SizeVar("?"))
        return TensorType(dims, dtype)

    # -- import -------------------------------------------------------------------------------------------------
    def convert(self):
        graph = self.model.graph
        unknown = set(self.user_shapes) - {vi.name for vi in graph.input}
        if unknown:
            raise ValueError_(f"from_onnx: shape names no graph input: {', '.join(sorted(unknown))} (inputs: "
                              f"{', '.join(vi.name for vi in graph.input)})")
        check_opsets(self.opsets)
        self.check_structure(graph)
        for out in graph.output:
            t = out.type
            if not t.HasField("tensor_type") and not t.WhichOneof("value") or \
                    t.HasField("tensor_type") and not t.tensor_type.elem_type:
                raise ValueError_(f"graph output '{out.name}' declares no element type, which ONNX requires "
                                  f"(onnxruntime refuses such a model)")
        self.check_supported(graph)
        check_nodes(graph, self.opsets, _norm_domain, _Label, self.model.ir_version)
        self._fixed_dims = dims_fixed_by_weights(graph)
        symbols = {}
        inputs = []
        overridable = {vi.name for vi in graph.input}  # an initializer also listed as an input is a default value
        for init in graph.initializer:
            array = self.read_tensor(init, f"initializer '{init.name}'")
            if array.dtype == object:
                raise OpNotImplemented(f"initializer '{init.name}': string tensors are not supported (the IR has no "
                                       f"string dtype)")
            # Integer and bool initializers that are not inputs are constants (ONNX's rule; they are shapes, axes,
            # indices, not weights), so the shape arithmetic and If conditions that read them fold at import.
            if self.freeze_params or (array.dtype.kind in "iub" and init.name not in overridable):
                symbols[init.name] = self.infer_type(_expr.const(array))
            else:
                self.params[init.name] = array
                v = _expr.Var(init.name, TensorType(array.shape, from_numpy_dtype(array.dtype)))
                self._param_vars[v] = init.name
                symbols[init.name] = v
        for vi in graph.input:
            if vi.name in symbols:
                continue
            v = _expr.Var(vi.name, self.value_type(vi))
            symbols[vi.name] = v
            inputs.append(v)
        params_vars = [v for v in self._param_vars]
        self.convert_nodes(graph.node, symbols)
        self.check_declared_types(graph, symbols)
        outputs = [symbols[out.name] for out in graph.output]
        body = outputs[0] if len(outputs) == 1 else _expr.Tuple(outputs)
        func = _expr.Function(inputs + params_vars, body)
        return IRModule.from_expr(func), dict(self.params)

    def check_declared_types(self, graph, symbols):
        """A graph output or value_info whose declared element type is not the computed one is a TypeError (as
        onnxruntime refuses it), not a model that returns another dtype than it says."""
        for what, infos in (("graph output", graph.output), ("value_info", graph.value_info)):
            for vi in infos:
                value = symbols.get(vi.name)
                if value is not None:
                    check_declared_type(vi, value.checked_type, what, tensor_dtype)

    def convert_nodes(self, nodes, symbols):
        """Convert nodes in order, reading inputs from and writing outputs to the symbol table (a mapping)."""
        for node in nodes:
            self.convert_node(node, symbols)

    def convert_node(self, node, symbols):
        """Convert one node: its outputs go into symbols (typed, folded to Constants when computable)."""
        onnx = _onnx()
        label = _Label(node)
        domain = _norm_domain(node.domain)
        converter = get_convert_map(self.opsets[domain], domain)[node.op_type]
        inputs = []
        for name in node.input:
            if name == "":
                inputs.append(None)
            elif name not in symbols:
                raise ValueError_(f"{label}: input '{name}' is produced by no earlier node, initializer or graph "
                                  f"input")
            else:
                inputs.append(symbols[name])
        while inputs and inputs[-1] is None:
            inputs.pop()
        schema = schema_of(domain, node.op_type, self.opsets[domain])
        if schema is not None:
            check_input_types(node, schema, inputs, label)
        attr = {}
        for a in node.attribute:  # kinds, names and flags are checked (validate.py)
            if a.ref_attr_name:
                raise OpNotImplemented(f"{label}: attribute '{a.name}' refers to a function attribute "
                                       f"('{a.ref_attr_name}'); only model graphs are converted")
            attr[a.name] = _attribute_value(onnx, a, label, attribute_kind(a), self.read_tensor)
        inputs_constant = all(i is None or isinstance(i, _expr.Constant) for i in inputs)
        outer_node, self.node = self.node, node
        outer_scope, self.scope = self.scope, symbols  # the names a subgraph of this node may use
        try:
            result = converter(inputs, attr, self)
            outs = list(result) if isinstance(result, (list, tuple)) else [result]
            outs = self._infer_together(outs)
        except Exception as err:  # noqa: BLE001 - every failure is reported against the node
            raise _with_node(err, label)  # chained to err: its traceback is the converter's
        finally:
            self.node, self.scope = outer_node, outer_scope
        names = list(node.output)
        if len(outs) > len(names) and any(o is not None for o in outs[len(names):]):
            outs = outs[:len(names)]  # optional outputs the node does not ask for
        for k, name in enumerate(names):
            if not name:
                continue
            value = outs[k] if k < len(outs) else None
            if value is None:
                raise OpNotImplemented(f"{label}: output {k} ('{name}') is not produced by the converter")
            symbols[name] = self._fold(value, inputs_constant)

    def _infer_together(self, outs):
        """The outputs typed in one InferType run: outputs sharing a call (If, split, topk: TupleGetItems of one
        call) keep sharing one typed call. Typed one by one, each would get its own copy of the call, and the
        build would compute it once per output (a merged decoder's whole If once per present key/value)."""
        given = [o for o in outs if o is not None]
        if len(given) <= 1:
            return [self.infer_type(o) if o is not None else None for o in outs]
        typed = iter(self.infer_type(_expr.Tuple(given)).fields)
        return [next(typed) if o is not None else None for o in outs]

    def _fold(self, expr, inputs_constant):
        """expr, or a Constant of its value when it is computable now and small (see the module docstring).

        With every input a Constant, any deterministic result folds. Otherwise only an integer or bool result is
        tried with type-only inputs (Shape, Size): a float result of a non-constant input depends on its data.
        A param (an initializer, unless frozen) is a run-time input: the user may replace it, so only its type is
        known here.
        """
        if isinstance(expr, (_expr.Constant, _expr.Var, _expr.Function)):
            return expr
        ty = expr.checked_type
        if not isinstance(ty, TensorType):
            return expr
        if not inputs_constant and not str(ty.dtype).startswith(("int", "uint", "bool")):
            return expr
        if not within_fold_limit(ty.shape):
            return expr
        value = self._folder.value(expr)
        if value is None:
            return expr
        try:
            const = _expr.const(value)
        except Exception:  # noqa: BLE001 - a dtype the NDArray cannot hold: keep the expression
            return expr
        return self.infer_type(const)


def _attribute_value(onnx, a, label, kind, read_tensor):
    """The Python value of attribute a (whose kind is checked); tensors through read_tensor(tensor, what)."""
    A = onnx.AttributeProto
    try:
        if kind == A.FLOAT:
            return float(a.f)
        if kind == A.INT:
            return int(a.i)
        if kind == A.STRING:
            return a.s.decode("utf-8", "surrogateescape")
        if kind == A.TENSOR:
            return read_tensor(a.t, f"{label}: attribute '{a.name}'")
        if kind == A.GRAPH:
            return a.g
        if kind == A.FLOATS:
            return [float(x) for x in a.floats]
        if kind == A.INTS:
            return [int(x) for x in a.ints]
        if kind == A.STRINGS:
            return [s.decode("utf-8", "surrogateescape") for s in a.strings]
        if kind == A.TENSORS:
            return [read_tensor(t, f"{label}: attribute '{a.name}'") for t in a.tensors]
        if kind == A.GRAPHS:
            return list(a.graphs)
        if kind == A.TYPE_PROTO:
            return a.tp
        if kind == A.SPARSE_TENSOR:
            return a.sparse_tensor
    except ValueError_:
        raise  # read_tensor's, naming the node and attribute
    except Exception as err:  # noqa: BLE001 - a malformed tensor attribute
        raise OpAttributeInvalid(f"{label}: attribute '{a.name}' cannot be read: {err}") from None
    raise OpNotImplemented(f"{label}: attribute '{a.name}' of kind {kind_name(kind)} is not supported")


def load_model(model):
    """(ModelProto, its folder or None) from a ModelProto, a path or serialized bytes; ValueError /
    FileNotFoundError when it is not. External tensor data is left where it is (read_tensor reads it, confined)."""
    onnx = _onnx()
    from google.protobuf.message import DecodeError

    if isinstance(model, onnx.ModelProto):
        return model, None
    if isinstance(model, (bytes, bytearray, memoryview)):
        try:
            return onnx.load_model_from_string(bytes(model)), None
        except (DecodeError, RuntimeError, ValueError) as err:
            raise ValueError_(f"from_onnx: the bytes are not a serialized ONNX model ({err})") from None
    if isinstance(model, str) or hasattr(model, "__fspath__"):
        path = os.fspath(model)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"from_onnx: no such file: '{path}'")
        try:
            loaded = onnx.load(path, load_external_data=False)
        except (DecodeError, RuntimeError, ValueError, OSError) as err:
            raise ValueError_(f"from_onnx: '{path}' is not an ONNX model ({err})") from None
        if not loaded.HasField("graph") and not loaded.opset_import:
            raise ValueError_(f"from_onnx: '{path}' is not an ONNX model (no graph and no opset_import)")
        return loaded, os.path.dirname(os.path.abspath(path))
    raise TypeError_(f"from_onnx: model must be an onnx.ModelProto, a path or bytes, got {type(model).__name__}")


def from_onnx(model: onnx.ModelProto | str | os.PathLike[str] | bytes,
              shape: Mapping[str, Sequence[int | str | None]] | None = None, dtype: str | None = None,
              opset: int | None = None, freeze_params: bool = False,
              base_dir: str | os.PathLike[str] | None = None) -> tuple[IRModule, dict[str, np.ndarray]]:
    """Convert an ONNX model to (IRModule, params).

    Parameters
    ----------
    model : onnx.ModelProto, str, os.PathLike or bytes
        The model, a path to a .onnx file, or a serialized model.
    shape : dict of str to tuple, optional
        Input shapes by input name; they override the model's (a str or None dim is symbolic).
    dtype : str, optional
        The dtype to assume for graph inputs whose element type the model leaves unset (ONNX requires one, and
        onnxruntime refuses such a model). None: such an input is a ValueError.
    opset : int, optional
        Override the model's default-domain opset.
    freeze_params : bool
        Initializers become Constants (folded into the graph) instead of params. Integer and bool initializers
        that are not also graph inputs (shapes, axes, indices: ONNX makes them constants) are Constants either way.
    base_dir : str or os.PathLike, optional
        The folder tensors stored as external data are read from, and may not leave (no absolute path, '..' or
        symlink out of it). Defaults to the model's folder for a path; a model given as bytes or a ModelProto has
        none, so its external data is refused unless base_dir is given.

    Returns
    -------
    (IRModule, dict of str to numpy.ndarray)
        Initializers become params (by name) and inputs of main after the graph inputs, unless frozen; graph
        inputs that are not initializers become typed Vars; outputs keep the graph's order (a tuple when there
        are several).
    """
    model, folder = load_model(model)
    if base_dir is not None:
        if not isinstance(base_dir, str) and not hasattr(base_dir, "__fspath__"):
            raise TypeError_(f"from_onnx: base_dir must be a path, got {type(base_dir).__name__}")
        folder = os.fspath(base_dir)
        if not os.path.isdir(folder):
            raise FileNotFoundError(f"from_onnx: base_dir is not a folder: '{folder}'")
    if not model.HasField("graph"):
        raise ValueError_("from_onnx: the model has no graph")
    return GraphImporter(model, shape, dtype, opset, freeze_params, folder).convert()
