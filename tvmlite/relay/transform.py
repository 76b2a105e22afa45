"""Relay passes: ``relay.transform.FoldConstant()(mod)``.

Each function returns a Pass (tvmlite.ir.transform.Pass) over a C++ pass (csrc/relay/transforms, registered as
``relay._transform.<Name>``). A pass called directly always runs; inside ``tvmlite.transform.Sequential`` it runs
when the current PassContext enables it, by the opt_level TVM gives it.
"""
from ..ir.transform import Pass, PassContext, Sequential
from . import _ffi_api
from .backend import const_eval  # noqa: F401 - registers relay.backend.eval_const, which FoldConstant calls

__all__ = ["InferType", "Pass", "Sequential", "PassContext", "SimplifyInference", "SimplifyExpr", "FoldConstant",
           "FoldScaleAxis", "DeadCodeElimination", "FuseOps", "BindParams", "bind_params_by_name",
           "DynamicToStatic", "Legalize", "AlterOpLayout"]


def _cxx(name):
    return _ffi_api.__getattr__("_transform." + name)


def InferType():  # noqa: N802 - TVM's name
    """Type every expression (shapes and dtypes) with the ops' type relations."""
    return Pass("InferType", _cxx("InferType"), opt_level=0)


def SimplifyInference():  # noqa: N802
    """Inference batch_norm -> ``x * scale + shift`` (scale and shift along the channel axis), inference
    dropout -> its input."""
    return Pass("SimplifyInference", _cxx("SimplifyInference"), opt_level=0)


def SimplifyExpr():  # noqa: N802 - TVM's name
    """Arithmetic that spells out an op rewritten into it: GELU in its Erf form (``x * 0.5 * (1 + erf(x /
    sqrt(2)))``, any nesting and operand order) -> ``nn.gelu(x)``."""
    return Pass("SimplifyExpr", _cxx("SimplifyExpr"), opt_level=0)


def FoldConstant():  # noqa: N802
    """Evaluate once, with the ops' numpy references, every call whose inputs are all constants; results far
    bigger than their inputs (> 16M elements and > 4x the inputs) stay lazy."""
    return Pass("FoldConstant", _cxx("FoldConstant"), opt_level=2)


def FoldScaleAxis():  # noqa: N802
    """Fold a constant per-output-channel multiply after conv1d / conv2d / conv3d (channel-first data and weight) or
    dense, possibly through a per-channel bias add, into the weight (and the bias)."""
    return Pass("FoldScaleAxis", _cxx("FoldScaleAxis"), opt_level=3)


def Legalize():  # noqa: N802
    """Rewrite ops the cpu target has no kernel of their own for into ones it has: nn.conv1d and
    nn.conv1d_transpose become ``squeeze(nn.conv2d(expand_dims(x, 2), expand_dims(w, 2)), 2)`` (the transpose
    likewise) over a height of 1, the squeeze then sunk below the elementwise ops after it (so they fuse into the
    conv) and cancelled against the next conv's expand_dims."""
    return Pass("Legalize", _cxx("Legalize"), opt_level=1)


def DeadCodeElimination():  # noqa: N802
    """Forward TupleGetItem(Tuple(...), i) to its field and drop module functions main does not reach."""
    return Pass("DeadCodeElimination", _cxx("DeadCodeElimination"), opt_level=1)


def FuseOps(fuse_opt_level=-1):  # noqa: N802
    """Group each anchor op with the elementwise ops after it (TVM's post-dominator fusion); every group is a
    ``Function`` with ``Primitive=1`` called from main. fuse_opt_level -1 takes the current PassContext's
    opt_level when the pass runs; 0 leaves the module unfused. A group holds at most
    ``PassContext.config["relay.FuseOps.max_depth"]`` ops (default 32)."""
    if not isinstance(fuse_opt_level, int) or isinstance(fuse_opt_level, bool):
        raise TypeError(f"FuseOps: fuse_opt_level must be an int, got {type(fuse_opt_level).__name__}")
    fuse = _cxx("FuseOps")

    def run(mod):
        ctx = PassContext.current()
        level = ctx.opt_level if fuse_opt_level < 0 else fuse_opt_level
        max_depth = ctx.config.get("relay.FuseOps.max_depth", 32)
        if not isinstance(max_depth, int) or isinstance(max_depth, bool) or max_depth < 1:
            raise ValueError(f"FuseOps: relay.FuseOps.max_depth must be an int >= 1, got {max_depth!r}")
        return fuse(mod, level, max_depth)

    return Pass("FuseOps", run, opt_level=0)


def bind_params_by_name(func, params):
    """func with the parameters named in params (str -> numpy array or NDArray) replaced by Constants.

    Unknown names, and arrays whose shape or dtype do not fit the parameter, are a ValueError."""
    from ..runtime.ndarray import NDArray
    from .. import nd
    from .expr import Function

    if not isinstance(func, Function):
        raise TypeError(f"bind_params_by_name: func must be a relay Function, got {type(func).__name__}")
    if not isinstance(params, dict):
        raise TypeError(f"bind_params_by_name: params must be a dict of str to arrays, got "
                        f"{type(params).__name__}")
    arrays = {}
    for name, value in params.items():
        if not isinstance(name, str):
            raise TypeError(f"bind_params_by_name: parameter names must be str, got {name!r}")
        arrays[name] = value if isinstance(value, NDArray) else nd.array(value)
    return _cxx("BindParams")(func, arrays)


def BindParams(params):  # noqa: N802
    """A pass binding params (as bind_params_by_name) in the module's main."""
    from ..ir.module import IRModule

    def run(mod):
        functions = {name: mod[name] for name in mod.get_global_vars()}
        functions["main"] = bind_params_by_name(mod["main"], params)
        return IRModule(functions)

    return Pass("BindParams", run, opt_level=0)


def DynamicToStatic():  # noqa: N802
    """Rewrite each dyn.* op whose shape-like inputs (reshape's shape, strided_slice's bounds, pad's pads, a
    reduction's axes, topk's k, ...) are constants into its static op, so its result dims are known: the ONNX
    frontend makes dyn ops for shape inputs that are params until build binds them. Values the static op rejects
    leave the dyn op in place. Run FoldConstant before (bound params folded into the shape inputs) and after."""
    return Pass("DynamicToStatic", _cxx("DynamicToStatic"), opt_level=3)


from .transform_layout import AlterOpLayout  # noqa: E402  (its own file; it builds on Pass above)
