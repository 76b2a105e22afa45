"""The converter framework: OnnxOpConverter, the converter registry, AttrCvt and Renamer.

A converter is a class per ONNX op (one module per op family), with one ``_impl_vN`` classmethod per opset
version N in which the op's semantics changed:

    @register_converter("Conv")
    class Conv(OnnxOpConverter):
        @classmethod
        def _impl_v1(cls, inputs, attr, ctx):
            ...
            return relay.nn.conv2d(inputs[0], inputs[1], strides=attr.get("strides", (1, 1)), ...)

        @classmethod
        def _impl_v11(cls, inputs, attr, ctx): ...

For a model of opset 13, ``Conv.get_converter(13)`` is ``_impl_v11`` (the largest N <= 13); for opset 0 it is a
clear OpNotImplemented, never a newer version's semantics. The table ``get_convert_map(opset, domain)`` maps
op_type -> bound converter, built once per (domain, opset) and cached.

A converter gets
  inputs: relay expressions, already typed (``inputs[0].checked_type.shape``), None for an omitted optional
          input; ``len(inputs)`` is the node's input count (trailing omitted inputs dropped).
  attr:   the node's attributes as Python values: int, float, str (decoded), bytes kept for STRING tensors never,
          lists of those, numpy arrays for TENSOR, onnx.GraphProto for GRAPH (convert with ctx.convert_subgraph).
  ctx:    the importer (see ConverterContext): ctx.opset, ctx.params (initializers by name, numpy, when not
          frozen), ctx.infer_type(expr) -> typed expr, ctx.try_constant(expr) -> numpy array or None,
          ctx.convert_subgraph(...), ctx.node (the onnx.NodeProto being converted), ctx.new_var(name, type).
and returns an expression, or a list/tuple of them for a node with several outputs (None for an output the node
does not ask for; an output it asks for must be produced).

Constants: an input computable at import time usually arrives as a relay Constant already: the importer folds
each node's result when all its inputs are Constants, and an integer result that depends only on its inputs'
static types (Shape, Size of a static tensor), up to FOLD_LIMIT elements (importer.within_fold_limit; fold.py).
``ctx.try_constant(expr)`` also folds on request (any size: values a converter reads, such as shapes), and
returns None when the value is known only at run time. Params (initializers, unless ``freeze_params``) are run-time
inputs the user may replace: only their types are known. Ops with random results must not be folded: mark them
``Op.get(name).set_attr("TNonDeterministic", True)`` (names with "random", "multinomial" or "bernoulli" are
recognised without it).

Errors: a converter raises OpAttributeInvalid / OpAttributeRequired / ValueError / TypeError with a message; the
importer re-raises it (same class) as ``node 'name' (OpType): message`` and so do type relation failures (so a
message names the attribute or value, never the node: the importer names it, once). It also
checks each attribute's kind against the op schema before calling the converter (a FLOAT where the schema says
INT is OpAttributeInvalid). OpNotImplemented from ``unsupported(...)`` marks an attribute value or input kind that
is valid ONNX but not converted yet.

Attribute values are checked here, once per kind, so a hostile value is an OpAttributeInvalid naming the attribute
and never an IndexError, KeyError or numpy AxisError from deep inside a converter:

    axis_attr(attr, "axis", 1, data)              an axis of data (negatives count from the end), as given
    normalize_axis(axis, rank, "axis")            the same check on a value at hand, as an index in [0, rank)
                                                  (name an input's value "input 'axes'": it is named as given)
    normalize_axes(axes, rank, "axes")            a list of them, no repeats
    check_perm(perm, rank, "perm")                a permutation of the rank's axes
    choice_attr(attr, "mode", "constant", modes)  one of a fixed set of strings
    dtype_attr(attr, "to")                        an ONNX TensorProto data type, as the IR dtype string
    input_at(inputs, i)                           optional input i, None when the node leaves it out
    required_attr(attr, "to")                     a required attribute's value (several names: a list)

Typed inputs are read through ``dims_of(x)`` (the dims, ints or SizeVars), ``dtype_of(x)`` ("float32") and
``is_static(dims)``. A converter whose opset versions differ in details only is one ``_convert(cls, inputs, attr,
ctx, version)`` under ``@opset_versions(1, 6, 13)``, which defines ``_impl_v1``, ``_impl_v6``, ``_impl_v13``.
"""
import threading

from ....error import OpAttributeInvalid, OpAttributeRequired, OpNotImplemented

__all__ = ["OnnxOpConverter", "register_converter", "get_convert_map", "registered_ops", "AttrCvt", "Renamer",
           "register_renamed", "unsupported", "ConverterContext", "rank_of", "normalize_axis", "axis_attr",
           "normalize_axes", "check_perm", "choice_attr", "dtype_attr", "input_at", "required_attr", "dims_of",
           "dtype_of", "is_static", "opset_versions"]

_REGISTRY = {}  # (domain, op_type) -> converter class
_MAP_CACHE = {}  # (domain, opset) -> {op_type: bound converter}
_LOCK = threading.Lock()


class OnnxOpConverter:
    """Base of converters: subclasses define ``_impl_vN(cls, inputs, attr, ctx)`` classmethods."""

    @classmethod
    def versions(cls):
        """The opset versions this converter implements, ascending."""
        return sorted(int(name[len("_impl_v"):]) for name in dir(cls)
                      if name.startswith("_impl_v") and name[len("_impl_v"):].isdigit())

    @classmethod
    def get_converter(cls, opset):
        """The ``_impl_vN`` with the largest N <= opset; OpNotImplemented when opset predates them all."""
        versions = [v for v in cls.versions() if v <= opset]
        if not versions:
            raise OpNotImplemented(f"{cls.__name__}: opset {opset} is older than every implemented version "
                                   f"({', '.join(map(str, cls.versions())) or 'none'})")
        return getattr(cls, f"_impl_v{versions[-1]}")


def opset_versions(*versions):
    """Class decorator: for each N in versions, ``_impl_vN`` calls ``cls._convert(inputs, attr, ctx, N)`` (one
    implementation that reads what changed between versions from N)."""
    def decorate(cls):
        for v in versions:
            setattr(cls, f"_impl_v{v}", classmethod(
                lambda c, inputs, attr, ctx, _v=v: c._convert(inputs, attr, ctx, _v)))
        return cls

    return decorate


def register_converter(op_type=None, domain=""):
    """Class decorator: register a converter for op_type (default: the class name) in an ONNX domain."""
    def register(cls):
        key = (domain, op_type or cls.__name__)
        with _LOCK:
            if key in _REGISTRY and _REGISTRY[key] is not cls:
                raise ValueError(f"a converter for {key[1]} (domain {key[0]!r}) is already registered: "
                                 f"{_REGISTRY[key].__module__}.{_REGISTRY[key].__name__}")
            _REGISTRY[key] = cls
            _MAP_CACHE.clear()
        return cls

    return register


def registered_ops(domain=""):
    """op_type -> converter class for one domain."""
    _load_families()
    return {op: cls for (d, op), cls in _REGISTRY.items() if d == domain}


def get_convert_map(opset, domain=""):
    """op_type -> converter for the opset (ops whose converters all postdate the opset are left out)."""
    _load_families()
    key = (domain, opset)
    table = _MAP_CACHE.get(key)
    if table is None:
        table = {}
        for (d, op), cls in list(_REGISTRY.items()):
            if d == domain and any(v <= opset for v in cls.versions()):
                table[op] = cls.get_converter(opset)
        with _LOCK:
            _MAP_CACHE[key] = table
    return table


# TVM's name for the same table.
_get_convert_map = get_convert_map


_FAMILIES_LOADED = []


def _load_families():
    if not _FAMILIES_LOADED:  # an import statement per lookup costs microseconds: once is enough
        from . import _families  # noqa: F401  (imports every op-family module, which registers its converters)

        _FAMILIES_LOADED.append(True)


def unsupported(what):
    """Raise OpNotImplemented for a valid but unconverted case ("Resize: mode 'cubic' with antialias")."""
    raise OpNotImplemented(what)


def rank_of(expr):
    """The rank of a typed tensor expression (or of a type), None when it is not known (a tensor of any rank, a
    sequence)."""
    from ....ir.type import TensorType, Type

    ty = expr if isinstance(expr, Type) else getattr(expr, "checked_type", None) if expr is not None else None
    return len(ty.shape) if isinstance(ty, TensorType) else None


def dims_of(expr):
    """A typed tensor expression's dims, as a list (ints, SizeVars where symbolic)."""
    return list(expr.checked_type.shape)


def dtype_of(expr):
    """A typed tensor expression's dtype, as a string ("float32")."""
    return str(expr.checked_type.dtype)


def is_static(dims):
    """Whether every dim is known at import (an int, not a SizeVar)."""
    return all(isinstance(d, int) for d in dims)


def _what(name):
    """How messages name a value: ``attribute 'axis'``, or name itself when it says what it is ("input 'axes'")."""
    return name if " " in name else f"attribute '{name}'"


def normalize_axis(axis, rank, name="axis", end=False):
    """axis as an index in [0, rank) (negatives count from the end; a scalar's axis may be 0 or -1); with end, a
    split point in [0, rank] (Flatten: [-rank, rank], negatives + rank). An axis of a result one rank larger
    (OneHot, Unsqueeze) is normalize_axis(axis, rank + 1). OpAttributeInvalid naming it (see _what) otherwise."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise OpAttributeInvalid(f"{_what(name)} must be an integer, got {axis!r}")
    n = rank if end else max(rank, 1)
    lo, hi = -n, (rank if end else n - 1)
    if not lo <= axis <= hi:
        raise OpAttributeInvalid(f"{_what(name)} is {axis}: out of range for an input of rank {rank} "
                                 f"(valid: {lo} to {hi})")
    return axis + n if axis < 0 else axis


def axis_attr(attr, name, default, data, extra=0):
    """Attribute ``name`` (default when absent) checked as an axis of data (with extra, of a result extra ranks
    larger: OneHot's); returned as given (negatives stay), so the IR keeps the model's value. Unchecked when
    data's rank is not known."""
    axis = attr.get(name, default)
    rank = rank_of(data)
    if axis is not None and rank is not None:
        normalize_axis(axis, rank + extra, name)
    return axis


def normalize_axes(axes, rank, name="axes", unique=True):
    """Each axis normalised (see normalize_axis); a repeated axis is OpAttributeInvalid when unique."""
    out = [normalize_axis(a, rank, name) for a in axes]
    if unique and len(set(out)) != len(out):
        raise OpAttributeInvalid(f"{_what(name)} {list(axes)} repeats an axis")
    return out


def check_perm(perm, rank, name="perm"):
    """perm normalised, when it is a permutation of an input of rank rank's axes; OpAttributeInvalid otherwise."""
    if len(perm) != rank:
        raise OpAttributeInvalid(f"attribute '{name}' {list(perm)} has {len(perm)} entries for an input of rank "
                                 f"{rank}")
    out = [normalize_axis(a, rank, name) for a in perm]
    if sorted(out) != list(range(rank)):
        raise OpAttributeInvalid(f"attribute '{name}' {list(perm)} is not a permutation of the axes 0 to {rank - 1}")
    return out


def choice_attr(attr, name, default, allowed):
    """Attribute ``name`` (default when absent), which must be one of allowed."""
    value = attr.get(name, default)
    if value not in allowed:
        raise OpAttributeInvalid(f"attribute {name}={value!r} is not one of {', '.join(map(str, allowed))}")
    return value


def dtype_attr(attr, name, default=None, kinds=None):
    """The IR dtype (``"float32"``) that attribute ``name`` names as an ONNX TensorProto data type (default when
    absent; a None default stays None). kinds restricts numpy kinds ("f": a float type)."""
    from .importer import tensor_dtype

    code = attr.get(name, default)
    if code is None:
        return None
    if isinstance(code, bool) or not isinstance(code, int) or code <= 0:
        raise OpAttributeInvalid(f"attribute '{name}' is {code!r}: not an ONNX tensor data type")
    try:
        dtype = tensor_dtype(code)
    except ValueError:
        raise OpAttributeInvalid(f"attribute '{name}' is {code}: not an ONNX tensor data type") from None
    if kinds is not None:
        from ...backend.dtypes import to_numpy_dtype
        import numpy as np

        if dtype == "string" or np.dtype(to_numpy_dtype(dtype)).kind not in kinds:
            want = {"f": "a float type"}.get(kinds, f"a type of kind {kinds!r}")
            raise OpAttributeInvalid(f"attribute '{name}' is {dtype}, must be {want}")
    return dtype


def input_at(inputs, i):
    """Input i, or None when the node leaves it out (an optional input past the ones given)."""
    return inputs[i] if i < len(inputs) else None


def required_attr(attr, *names):
    """The value of the attribute the node must set (several names: a list of their values); OpAttributeRequired
    naming the first one it leaves out."""
    for name in names:
        if name not in attr:
            raise OpAttributeRequired(f"attribute '{name}' is required")
    values = [attr[name] for name in names]
    return values[0] if len(names) == 1 else values


class AttrCvt:
    """Convert by renaming the op and its attributes (TVM's AttrCvt), for converters that are a direct mapping.

    AttrCvt(op_builder, transforms={"alpha": "alpha"}, defaults={"alpha": 0.01}, ignores=["consumed_inputs"],
            disables=["spatial"], extras={"axis": 1})(inputs, attr, ctx)
    calls op_builder(*inputs, **attrs) with the renamed attributes, defaults for missing ones and extras added.
    transforms maps an ONNX name to a new name, or to (new_name, default) or (new_name, default, fn).
    A disabled attribute present on the node is OpAttributeInvalid; an attribute neither transformed, ignored
    nor expected by the builder is passed on under its own name.
    """

    def __init__(self, op_builder, transforms=None, defaults=None, ignores=None, disables=None, extras=None,
                 required=None):
        self.op_builder = op_builder
        self.transforms = transforms or {}
        self.defaults = defaults or {}
        self.ignores = set(ignores or ())
        self.disables = set(disables or ())
        self.extras = extras or {}
        self.required = list(required or ())

    def __call__(self, inputs, attr, ctx=None):
        required_attr(attr, *self.required)
        out = dict(self.defaults)
        for name, value in attr.items():
            if name in self.ignores:
                continue
            if name in self.disables:
                raise OpAttributeInvalid(f"attribute '{name}' is not supported")
            rule = self.transforms.get(name, name)
            if isinstance(rule, str):
                out[rule] = value
            else:
                new_name, _default, *fn = rule
                out[new_name] = fn[0](value) if fn else value
        for name, rule in self.transforms.items():
            if not isinstance(rule, str) and name not in attr:
                out.setdefault(rule[0], rule[1])
        out.update(self.extras)
        return self.op_builder(*[i for i in inputs if i is not None], **out)


class Renamer:
    """A converter that is the same op under another name and no attributes: Renamer(relay.exp)."""

    def __init__(self, op_builder):
        self.op_builder = op_builder

    def __call__(self, inputs, attr, ctx=None):
        return self.op_builder(*[i for i in inputs if i is not None])


def register_renamed(op_type, since, op_builder, domain=""):
    """Register op_type's converter from opset since as Renamer(op_builder): the op is op_builder on the node's
    inputs, attributes ignored (SequenceAt is relay.sequence_at)."""
    renamer = Renamer(op_builder)
    impl = classmethod(lambda cls, inputs, attr, ctx: renamer(inputs, attr, ctx))
    return register_converter(op_type, domain)(type(op_type, (OnnxOpConverter,), {f"_impl_v{since}": impl}))


class ConverterContext:
    """What the importer offers converters (documented here; implemented by importer.GraphImporter).

    ``convert_subgraph(graph, input_types=None, as_tuple=False)`` converts a GraphProto attribute (If/Loop/Scan
    bodies) to a Function; the importer delegates it to ``subgraph.convert_subgraph(ctx, graph, input_types,
    as_tuple)`` in subgraph.py, which converts the nodes with ``ctx.convert_node(node, scope)`` over a nested
    symbol table (``collections.ChainMap({}, ctx.scope)``: ``ctx.scope`` is the enclosing graph's table while its
    node is converted) and types the graph's inputs with ``ctx.value_type(value_info)``.
    """

    opset = None
    params = None
    node = None
    scope = None

    def infer_type(self, expr):  # pragma: no cover - interface
        raise NotImplementedError

    def try_constant(self, expr):  # pragma: no cover - interface
        raise NotImplementedError

    def convert_subgraph(self, graph, input_types=None, as_tuple=False):  # pragma: no cover - interface
        raise NotImplementedError

    def new_var(self, name, type_annotation):  # pragma: no cover - interface
        raise NotImplementedError

    def read_tensor(self, tensor, what):  # pragma: no cover - interface
        """A TensorProto's value as numpy; external data only from the model's folder (tensor_data.py)."""
        raise NotImplementedError
