"""Error classes shared by both FFI backends.

Errors from C++ carry a *kind* string ("ValueError", "TypeError", "OpNotImplemented", ...). Each kind maps to one
Python class that derives from :class:`TVMLiteError` and, when the kind names a builtin exception, from that
builtin too: ``except ValueError`` and ``except tvmlite.TVMLiteError`` both catch a C++ ValueError.
"""
import builtins

__all__ = ["TVMLiteError", "InternalError", "register_error", "get_error_class", "error_from_c",
           "error_kind_and_message"]


class TVMLiteError(Exception):
    """Base class of every error raised from tvmlite's C++ runtime."""

    __module__ = "tvmlite.error"


class InternalError(TVMLiteError, builtins.RuntimeError):
    """A broken internal invariant of tvmlite: a bug to report, not a usage error."""

    __module__ = "tvmlite.error"


_KIND_TO_CLASS = {"InternalError": InternalError, "TVMLiteError": TVMLiteError}


def register_error(kind=None, cls=None):
    """Map an error kind to a Python class (decorator or call).

    Parameters
    ----------
    kind : str or type, optional
        The kind string C++ uses (``TVMLITE_THROW(Kind)``); defaults to the class name.
    cls : type, optional
        The class to register; when omitted, returns a decorator.

    Example
    -------
    >>> @register_error
    ... class OpNotImplemented(TVMLiteError, NotImplementedError):
    ...     pass
    """
    if isinstance(kind, type) and cls is None:
        cls, kind = kind, kind.__name__

    def _register(c):
        if not (isinstance(c, type) and issubclass(c, BaseException)):
            raise TypeError(f"register_error: cls must be an exception class, got {c!r}")
        _KIND_TO_CLASS[kind or c.__name__] = c
        return c

    return _register(cls) if cls is not None else _register


def get_error_class(kind):
    """The class for an error kind, created on first use for builtin and unknown kinds."""
    cls = _KIND_TO_CLASS.get(kind)
    if cls is not None:
        return cls
    builtin = getattr(builtins, kind, None)
    if isinstance(builtin, type) and issubclass(builtin, Exception) and kind.isidentifier():
        bases = (TVMLiteError,) if builtin is Exception else (TVMLiteError, builtin)
    else:
        bases = (TVMLiteError,)
    cls = type(kind if kind.isidentifier() else "TVMLiteError", bases, {"__module__": "tvmlite.error"})
    _KIND_TO_CLASS[kind] = cls
    return cls


# Both FFI backends translate errors through these two (their own code only reads or fills the C error cell).


def error_from_c(kind, message, where):
    """The Python exception for an error raised in C++: its kind's class, with the C++ location as a note."""
    exc = get_error_class(kind)(message)
    if where and hasattr(exc, "add_note"):  # add_note: Python 3.11+
        exc.add_note("raised at " + where)
    return exc


def error_kind_and_message(exc):
    """(kind, message) of a Python exception as C strings for TVMLiteErrorCreate. Never raises: it runs on the error
    path of callbacks, where a second exception has nowhere to go. NUL bytes would cut a C string: they become '?'."""
    try:
        kind = type(exc).__name__.encode("utf-8", "replace")
        message = str(exc).encode("utf-8", "replace")
    except BaseException:
        kind, message = b"RuntimeError", b"<exception could not be formatted>"
    return kind.replace(b"\0", b"?"), message.replace(b"\0", b"?")
