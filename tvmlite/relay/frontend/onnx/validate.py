"""Each node checked against its ONNX schema before conversion, as strictly as onnxruntime loads a model.

onnxruntime refuses a model (at session creation) when a node breaks its op's schema at the model's opset: an
attribute the op does not have, a required attribute missing, an attribute of another kind, fewer or more inputs or
outputs than the op takes, an empty name for a required input, an input whose element type the op's type
constraint does not allow (checked as each node is converted, when its inputs' types are known); and when a declared
type (a graph output's, a value_info's) disagrees with the type the graph computes. tvmlite refuses the same models
at import, with one error naming the node and the attribute or input, rather than running something the model's
author did not write.

On top of the schema, flag attributes (``keepdims``, ``sorted``, ...: FLAG_ATTRIBUTES) must be 0 or 1. The spec
says so, and the readings differ: onnxruntime's reductions read ``keepdims == 1``, a Python converter
``bool(keepdims)``, so ``keepdims=3`` would compute a different result in each.

Domains onnx has no schemas for (com.microsoft, ...) are checked only by their converters. Schema facts are read
once per (domain, op, opset).
"""
import collections

from ....error import OpAttributeInvalid, OpAttributeRequired, get_error_class

__all__ = ["check_opsets", "check_nodes", "check_input_types", "attribute_kind", "check_declared_type", "schema_of",
           "FLAG_ATTRIBUTES"]

ValueError_ = get_error_class("ValueError")
TypeError_ = get_error_class("TypeError")

# INT attributes the ONNX spec defines as booleans (0 or 1), by name; checked where the op's schema has the name as
# an INT attribute.
FLAG_ATTRIBUTES = frozenset({
    "keepdims", "noop_with_empty_axes", "select_last_index", "sorted", "largest", "exclusive", "reverse",
    "ceil_mode", "count_include_pad", "transA", "transB", "upper", "detect_negative", "detect_positive", "fmod",
    "allowzero", "new_axis", "center_point_box", "training_mode", "onesided", "inverse", "saturate", "interleaved",
    "is_causal", "layout", "spatial", "is_test", "broadcast", "input_forget", "linear_before_reset", "storage_order",
    "exclude_outside", "antialias", "periodic", "align_corners", "is_case_sensitive", "one_class", "multi_class",
    "zeros",
})

_MAX_INT = 2147483647  # a schema's max_input / max_output for a variadic op

# kinds: attribute name -> AttributeProto type; required: attribute names; required_inputs: per formal input, whether
# it is Single (may not be left empty); input_types: per formal input, the type strings it takes; variadic: whether
# the last formal input repeats
Schema = collections.namedtuple("Schema", "name kinds required required_inputs min_inputs max_inputs min_outputs "
                                          "max_outputs input_types variadic")
_SCHEMAS = {}  # (domain, op_type, opset) -> Schema or None (no schema: not checked here)


def _onnx():
    import onnx

    return onnx


def schema_of(domain, op_type, opset):
    """The Schema facts of op_type at opset (None when onnx has no schema for its domain)."""
    key = (domain, op_type, opset)
    found = _SCHEMAS.get(key, False)
    if found is False:
        onnx = _onnx()
        try:
            s = onnx.defs.get_schema(op_type, opset, domain)
        except Exception:  # noqa: BLE001 - a domain or op onnx does not know: its converter checks
            s = None
        if s is not None:
            option = onnx.defs.OpSchema.FormalParameterOption
            constraints = {c.type_param_str: frozenset(c.allowed_type_strs) for c in s.type_constraints}
            found = Schema(f"{op_type} (opset {opset})",
                           {n: int(a.type) for n, a in s.attributes.items()},
                           frozenset(n for n, a in s.attributes.items() if a.required),
                           tuple(p.option == option.Single for p in s.inputs),
                           s.min_input, s.max_input, s.min_output, s.max_output,
                           tuple(constraints.get(p.type_str, frozenset([p.type_str])) for p in s.inputs),
                           bool(s.inputs) and s.inputs[-1].option == option.Variadic)
        else:
            found = None
        _SCHEMAS[key] = found
    return found


_SINGLE_FIELDS = (("f", "FLOAT"), ("i", "INT"), ("s", "STRING"), ("t", "TENSOR"), ("g", "GRAPH"),
                  ("sparse_tensor", "SPARSE_TENSOR"), ("tp", "TYPE_PROTO"))
_LIST_FIELDS = (("floats", "FLOATS"), ("ints", "INTS"), ("strings", "STRINGS"), ("tensors", "TENSORS"),
                ("graphs", "GRAPHS"), ("sparse_tensors", "SPARSE_TENSORS"), ("type_protos", "TYPE_PROTOS"))


def _fields_set(a):
    """The kinds whose value field a sets (an empty list sets none)."""
    A = type(a)
    kinds = [getattr(A, k) for f, k in _SINGLE_FIELDS if a.HasField(f)]
    return kinds + [getattr(A, k) for f, k in _LIST_FIELDS if len(getattr(a, f))]


def attribute_kind(a):
    """a's AttributeProto type; old exporters (IR version 1) leave it unset, and then the one value field set tells
    (None: none)."""
    if a.type != type(a).UNDEFINED:
        return a.type
    kinds = _fields_set(a)
    return kinds[0] if len(kinds) == 1 else None


def _check_fields(a, label, ir_version):
    """As onnx's checker: one value field at most, of the declared type; the type is declared from IR version 2."""
    A = type(a)
    kinds = _fields_set(a)
    if len(kinds) > 1:
        raise OpAttributeInvalid(f"{label}: attribute '{a.name}' holds values of several kinds "
                                 f"({', '.join(kind_name(k) for k in kinds)})")
    if a.type == A.UNDEFINED:
        if ir_version >= 2:
            raise OpAttributeInvalid(f"{label}: attribute '{a.name}' declares no type (required from IR version 2)")
    elif kinds and kinds[0] != a.type:
        raise OpAttributeInvalid(f"{label}: attribute '{a.name}' is declared {kind_name(a.type)} but holds a "
                                 f"{kind_name(kinds[0])} value")
    elif not kinds and a.type not in {getattr(A, k) for _, k in _LIST_FIELDS}:
        raise OpAttributeInvalid(f"{label}: attribute '{a.name}' has no value")


def kind_name(kind):
    A = _onnx().AttributeProto
    return A.AttributeType.Name(kind) if kind in A.AttributeType.values() else str(kind)


def _count(low, high, what):
    if high >= _MAX_INT:
        return f"at least {low} {what}"
    return f"{low} {what}" if low == high else f"{low} to {high} {what}"


def check_node(node, schema, label, ir_version):
    """Raise OpAttributeInvalid / OpAttributeRequired / ValueError when node breaks schema (see module doc)."""
    seen = set()
    for a in node.attribute:
        if a.name in seen:
            raise OpAttributeInvalid(f"{label}: attribute '{a.name}' is given twice")
        seen.add(a.name)
        if a.ref_attr_name:
            continue  # a function's attribute reference: the importer refuses it with its own message
        _check_fields(a, label, ir_version)
        kind = attribute_kind(a)
        if kind is None:
            raise OpAttributeInvalid(f"{label}: attribute '{a.name}' has no value")
        if schema is None:
            continue
        want = schema.kinds.get(a.name)
        if want is None:
            known = ", ".join(sorted(schema.kinds)) or "none"
            raise OpAttributeInvalid(f"{label}: {schema.name} has no attribute '{a.name}' (its attributes: {known})")
        if want != kind:
            raise OpAttributeInvalid(f"{label}: attribute '{a.name}' must be {kind_name(want)}, got "
                                     f"{kind_name(kind)}")
        if a.name in FLAG_ATTRIBUTES and kind == a.INT and a.i not in (0, 1):
            raise OpAttributeInvalid(f"{label}: attribute '{a.name}' is a flag (0 or 1), got {a.i}")
    if schema is None:
        return
    missing = sorted(schema.required - seen)
    if missing:
        raise OpAttributeRequired(f"{label}: required attribute{'s' if len(missing) > 1 else ''} "
                                  f"{', '.join(repr(m) for m in missing)} of {schema.name} not given")
    n_in, n_out = len(node.input), len(node.output)
    if not schema.min_inputs <= n_in <= schema.max_inputs:
        raise ValueError_(f"{label}: {schema.name} takes {_count(schema.min_inputs, schema.max_inputs, 'inputs')}"
                          f", got {n_in}")
    if not schema.min_outputs <= n_out <= schema.max_outputs:
        raise ValueError_(f"{label}: {schema.name} has "
                          f"{_count(schema.min_outputs, schema.max_outputs, 'outputs')}, got {n_out}")
    for i, name in enumerate(node.input):
        if not name and i < len(schema.required_inputs) and schema.required_inputs[i]:
            raise ValueError_(f"{label}: input {i} of {schema.name} is required, but its name is empty")


_ONNX_NAMES = {}  # IR dtype -> onnx's name of it ("float32" -> "float"), None when onnx has none


def _onnx_name(dtype):
    name = _ONNX_NAMES.get(dtype, False)
    if name is False:
        import numpy as np

        onnx = _onnx()
        try:
            name = onnx.TensorProto.DataType.Name(onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))).lower()
        except Exception:  # noqa: BLE001 - a dtype onnx does not name: not checked
            name = None
        _ONNX_NAMES[dtype] = name
    return name


def check_input_types(node, schema, inputs, label):
    """A TypeError when a tensor input's element type is not one its op's type constraint allows (onnxruntime
    refuses such a model; a numpy reference would compute something, e.g. Sqrt of int32)."""
    from ....ir.type import DynTensorType, TensorType

    n = len(schema.input_types)
    for i, value in enumerate(inputs):
        if value is None or (i >= n and not schema.variadic):
            continue
        ty = value.checked_type
        if not isinstance(ty, (TensorType, DynTensorType)):
            continue  # sequences, optionals: their converters check
        name = _onnx_name(str(ty.dtype))
        allowed = schema.input_types[min(i, n - 1)]
        if name is not None and f"tensor({name})" not in allowed and any(a.startswith("tensor(") for a in allowed):
            takes = sorted(a for a in allowed if a.startswith("tensor("))
            raise TypeError_(f"{label}: input {i} ('{node.input[i]}') of {schema.name} is tensor({name}), which it "
                             f"does not take ({', '.join(takes[:8])}{', ...' if len(takes) > 8 else ''})")


def check_opsets(opsets):
    """A ValueError when the model imports a version of an ONNX domain that ONNX does not define (opset 0, or
    1099511627776): onnx's checker and onnxruntime refuse it, and every schema lookup would answer for another."""
    for domain, (low, high) in _onnx().defs.C.schema_version_map().items():
        version = opsets.get(domain)
        if version is not None and not low <= version <= high:
            raise ValueError_(f"the model imports opset {version} of {domain or 'ai.onnx'}, which ONNX defines "
                              f"from {low} to {high}")


def check_nodes(graph, opsets, norm_domain, label_of, ir_version):
    """check_node for every node of graph and of its subgraphs (If/Loop/Scan bodies) at the model's opsets."""
    A = _onnx().AttributeProto
    stack = [graph]
    while stack:
        g = stack.pop()
        for node in g.node:
            domain = norm_domain(node.domain)
            schema = schema_of(domain, node.op_type, opsets[domain]) if domain in opsets else None
            check_node(node, schema, label_of(node), ir_version)
            for a in node.attribute:
                if a.type == A.GRAPH:
                    stack.append(a.g)
                stack.extend(a.graphs)


def check_declared_type(value_info, ty, what, elem_dtype):
    """A TypeError when value_info declares a tensor element type other than the computed type ty's dtype.

    elem_dtype(elem_type) is the IR dtype of an ONNX element type (importer.tensor_dtype)."""
    from ....ir.type import TensorType

    t = value_info.type
    if t.WhichOneof("value") != "tensor_type" or not t.tensor_type.elem_type or not isinstance(ty, TensorType):
        return
    declared = elem_dtype(t.tensor_type.elem_type)
    if declared != str(ty.dtype):
        raise TypeError_(f"{what} '{value_info.name}' is declared {declared}, but the graph computes {ty.dtype}")
