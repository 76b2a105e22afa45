"""Errors raised by tvmlite. Every class derives from :class:`TVMLiteError`; kinds named after builtins also
derive from the builtin (a C++ ValueError is ``tvmlite.error.ValueError``, caught by ``except ValueError``)."""
from ._ffi.error import TVMLiteError, InternalError, register_error, get_error_class

__all__ = ["TVMLiteError", "InternalError", "OpError", "OpNotImplemented", "OpAttributeInvalid",
           "OpAttributeRequired", "register_error", "get_error_class", "with_context"]


@register_error
class OpError(TVMLiteError):
    """An error about an operator (frontends raise its subclasses)."""


@register_error
class OpNotImplemented(OpError, NotImplementedError):
    """An operator is not supported."""


@register_error
class OpAttributeInvalid(OpError, AttributeError):
    """An operator attribute has an invalid value."""


@register_error
class OpAttributeRequired(OpError, AttributeError):
    """A required operator attribute is missing."""


def with_context(err, context):
    """``err`` with ``context: `` in front of its message, of err's class: what to raise in its place.

    ``raise with_context(err, "node 'conv1' (Conv)")`` inside an ``except`` block. The message gains the
    context and the class is kept, so ``except MemoryError`` / ``except np.exceptions.AxisError`` in user code
    still catches what a numpy reference raised. The first case that applies:

    * ``str(err)`` already starts with the context (a nested caller, or the error itself, named it): err when it
      is a TVMLiteError, else the same message as below, without a second context;
    * the class rebuilds exactly from one message (``type(err)(text)`` has the same class, ``args == (text,)``,
      ``str() == text`` and the same attributes: ValueError, tvmlite's own errors, ...): that new instance;
    * otherwise (``_ArrayMemoryError(shape, dtype)``, ``AxisError(axis, ndim)``, KeyError's quoted message, an
      error carrying attributes): a copy of err (same args, attributes and notes) whose class derives from
      err's and from TVMLiteError (made once per class) and whose ``str()`` puts the context in front. A
      subclass rather than a PEP 678 note, because a note never reaches ``str(err)``: loggers,
      ``pytest.raises(match=...)`` and callers that wrap the message again see only ``str``.

    A new exception has err as its ``__cause__``; err itself is left as it was, except in the last resort: a
    class that can be neither subclassed nor rebuilt from its args gets the context as a note (``add_note``)
    and err is returned. Exceptions that are not errors (KeyboardInterrupt, SystemExit) come back unchanged.
    """
    if not isinstance(err, BaseException):
        raise TypeError(f"with_context: err must be an exception, got {type(err).__name__}")
    if not isinstance(context, str):
        raise TypeError(f"with_context: context must be a str, got {type(context).__name__}")
    if not isinstance(err, Exception):
        return err
    msg = _message(err)
    labelled = msg == context or msg.startswith(context + ": ")  # a reference that names its op itself
    if labelled and isinstance(err, TVMLiteError):
        return err
    text = msg if labelled else f"{context}: {msg}"
    new = _rebuilt(err, text)
    if new is None:
        parts = [p for p in (None if labelled else context, err.__dict__.get(_CONTEXT)) if p]
        new = _contextual_copy(err, ": ".join(parts) or None, text)
    if new is None:
        if labelled:
            return err

        err.add_note(context)
        return err
    new.__cause__ = err
    return new


_CONTEXT = "_tvmlite_context"  # the instance attribute holding a contextual copy's context


def _message(err):
    """err's message as text: a KeyError's key unquoted (as errors about a node always showed it), the class name
    for an empty message (``MemoryError()``, as Python raises it when out of memory)."""
    try:
        if isinstance(err, KeyError) and len(err.args) == 1 and _CONTEXT not in err.__dict__:
            return str(err.args[0]) or type(err).__name__
        return str(err) or type(err).__name__
    except Exception:  # noqa: BLE001 - a broken __str__ must not hide the error being reported
        return f"<{type(err).__name__} whose message cannot be formatted>"


def _state(err):
    return {k: v for k, v in err.__dict__.items() if k != "__notes__"}


def _rebuilt(err, text):
    """type(err)(text) when it is err with the new message and nothing lost, else None. A builtin class becomes
    tvmlite's kind of it (a ValueError -> tvmlite.error.ValueError, a TVMLiteError that still is a ValueError)."""
    if len(err.args) != 1 or not isinstance(err.args[0], str) or _CONTEXT in err.__dict__:
        return None
    cls = type(err)
    if cls.__module__ == "builtins":
        cls = get_error_class(cls.__name__)
    elif not issubclass(cls, TVMLiteError):
        return None  # another library's class (numpy's LinAlgError): the contextual copy makes it a TVMLiteError
    try:
        new = cls(text)
        same = type(new) is cls and new.args == (text,) and str(new) == text and _state(new) == _state(err)
    except Exception:  # noqa: BLE001 - a class that does not take one message
        return None
    if not same:
        return None
    if hasattr(err, "__notes__"):
        new.__notes__ = list(err.__notes__)
    return new


_CONTEXT_CLASSES = {}  # original exception class -> its subclass with a context


def _context_str(self):
    base = type(self)._tvmlite_base
    inner = str(self.args[0]) if issubclass(base, KeyError) and len(self.args) == 1 else base.__str__(self)
    inner = inner or base.__name__
    context = self.__dict__.get(_CONTEXT)
    return inner if context is None else f"{context}: {inner}"


def _context_reduce(self):
    return _rebuild_with_context, (type(self)._tvmlite_base, self.args, dict(self.__dict__))


def _rebuild_with_context(base, args, state):
    """Unpickles an error made by with_context (its class is made at run time: pickle cannot name it)."""
    new = _context_class(base)(*args)
    new.__dict__.update(state)
    return new


def _context_class(base):
    cls = _CONTEXT_CLASSES.get(base)
    if cls is None:
        bases = (base,) if issubclass(base, TVMLiteError) else (base, TVMLiteError)
        cls = type(base.__name__, bases, {"__module__": __name__, "__qualname__": base.__qualname__,
                                          "__doc__": base.__doc__, "_tvmlite_base": base,
                                          "__str__": _context_str, "__reduce__": _context_reduce})
        cls = _CONTEXT_CLASSES.setdefault(base, cls)  # two threads racing keep one class
    return cls


def _contextual_copy(err, context, text):
    """A copy of err (args, attributes, slots, notes) whose str() is text, or None when there is none."""
    base = type(err)._tvmlite_base if _CONTEXT in err.__dict__ else type(err)
    try:
        new = _context_class(base)(*err.args)
        new.__dict__.update(err.__dict__)
        for klass in base.__mro__:
            slots = klass.__dict__.get("__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                if name not in ("__dict__", "__weakref__") and hasattr(err, name):
                    setattr(new, name, getattr(err, name))
        if hasattr(err, "__notes__"):
            new.__notes__ = list(err.__notes__)
        new.__dict__[_CONTEXT] = context
        if str(new) != text:
            return None
    except Exception:  # noqa: BLE001 - a class that cannot be subclassed or rebuilt from its args
        return None
    return new
