"""Registering op attributes from Python: numpy reference implementations ("FReference") and others.

    @register_reference("add")
    def _add(attrs, a, b):
        return np.add(a, b)

A reference takes the call's attrs object and its inputs as numpy arrays (a tuple input arrives as a list) and
returns a numpy array, or a tuple of them for a tuple-typed op. It is registered as the op's "FReference"
attribute through the FFI (so C++ and ``Op.get_attr`` see it) and kept here too, so the debug executor calls the
Python function without crossing the FFI per op. The rule of levels is the registry's: a higher level overrides.
"""
import threading

from ...ir.op import Op

__all__ = ["register_reference", "get_reference", "get"]

_REFERENCES = {}  # op name -> (level, function): the Python functions behind "FReference"
_LOCK = threading.Lock()


def get(name):
    """The op registered under name (TVM's ``relay.op.get``)."""
    return Op.get(name)


def register_reference(op_name, fn=None, level=10):
    """Register fn as op_name's numpy reference implementation (decorator when fn is omitted)."""
    def register(f):
        op = Op.get(op_name)
        with _LOCK:
            op.set_attr("FReference", f, level)  # raises on a same-level clash, ignores a lower level
            if op.get_attr_level("FReference") == level:
                _REFERENCES[op_name] = (level, f)
        return f

    return register(fn) if fn is not None else register


def get_reference(op_name):
    """The callable the debug executor runs for op_name: the Python function registered at the op's current
    "FReference" level, or the attribute itself (a packed function registered elsewhere); None when unset."""
    op = Op.get(op_name)
    level = op.get_attr_level("FReference")
    if level is None:
        return None
    entry = _REFERENCES.get(op_name)
    if entry is not None and entry[0] == level:
        return entry[1]
    return op.get_attr("FReference")
