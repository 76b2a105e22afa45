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
static types (Shape, Size of a static tensor), up to FOLD_LIMIT elements (fold.py). ``ctx.try_constant(expr)``
also folds on request (any size), and returns None when the value is known only at run time. Params
(initializers, unless ``freeze_params``) are run-time inputs the user may replace: only their types are known. Ops with random results must not be folded:
mark them ``Op.get(name).set_attr("TNonDeterministic", True)`` (names with "random", "multinomial" or
"bernoulli" are recognised without it).

Errors: a converter raises OpAttributeInvalid / OpAttributeRequired / ValueError / TypeError with a message; the
importer re-raises it (same class) as ``node 'name' (OpType): message`` and so do type relation failures. It also
checks each attribute's kind against the op schema before calling the converter (a FLOAT where the schema says
INT is OpAttributeInvalid). OpNotImplemented from ``unsupported(...)`` marks an attribute value or input kind that
is valid ONNX but not converted yet.
"""
import threading

from ....error import OpAttributeInvalid, OpAttributeRequired, OpNotImplemented

__all__ = ["OnnxOpConverter", "register_converter", "get_convert_map", "registered_ops", "AttrCvt", "Renamer",
           "unsupported", "ConverterContext"]

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
        for name in self.required:
            if name not in attr:
                raise OpAttributeRequired(f"attribute '{name}' is required")
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
