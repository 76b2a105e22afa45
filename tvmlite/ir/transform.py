"""The pass infrastructure (TVM's ``tvm.transform``): Pass, Sequential and PassContext.

    with tvmlite.transform.PassContext(opt_level=3, disabled_pass=["FoldScaleAxis"]):
        mod = tvmlite.transform.Sequential([relay.transform.SimplifyInference(),
                                            relay.transform.FoldConstant()])(mod)

A pass is a module-to-module function with a name and an ``opt_level``; calling it on an IRModule returns a new
module (modules are immutable). A pass called directly always runs; a Sequential runs each of its passes that the
current PassContext enables: its name is in ``required_pass``, or it is not in ``disabled_pass`` and its
opt_level is at most the context's. The passes themselves are C++ (csrc/relay/transforms); this module only
decides which run, so it stays in Python, like TVM's.
"""
from __future__ import annotations

import threading
from typing import Any, Iterable

__all__ = ["PassContext", "Pass", "Sequential", "module_pass"]


class PassContext:
    """The options passes run under: ``opt_level``, the passes ``required_pass`` / ``disabled_pass`` by name,
    and a ``config`` dict of pass-specific options (``"relay.FuseOps.max_depth"``-style keys).

    Used as a context manager; contexts nest and leaving one restores the enclosing context.
    ``PassContext.current()`` is the innermost context of the calling thread (a default one, opt_level 2,
    outside any ``with``)."""

    _local = threading.local()

    def __init__(self, opt_level: int = 2, required_pass: Iterable[str] | None = None,
                 disabled_pass: Iterable[str] | None = None, config: dict[str, Any] | None = None) -> None:
        if not isinstance(opt_level, int) or isinstance(opt_level, bool) or opt_level < 0:
            raise ValueError(f"PassContext: opt_level must be an int >= 0, got {opt_level!r}")
        self.opt_level = opt_level
        self.required_pass = _names(required_pass, "required_pass")
        self.disabled_pass = _names(disabled_pass, "disabled_pass")
        if config is not None and not isinstance(config, dict):
            raise TypeError(f"PassContext: config must be a dict, got {type(config).__name__}")
        self.config = dict(config or {})

    @classmethod
    def _stack(cls):
        stack = getattr(cls._local, "stack", None)
        if stack is None:
            stack = cls._local.stack = [PassContext()]
        return stack

    @classmethod
    def current(cls):
        """The innermost context entered on this thread (the default context when none is)."""
        return cls._stack()[-1]

    @classmethod
    def is_default(cls):
        """Whether no context is entered on this thread (tvmlite.build then picks its own opt_level)."""
        return len(cls._stack()) == 1

    def __enter__(self) -> PassContext:
        self._stack().append(self)
        return self

    def __exit__(self, *exc):
        stack = self._stack()
        if len(stack) > 1 and stack[-1] is self:
            stack.pop()
        return False

    def pass_enabled(self, pass_):
        """Whether a Sequential runs pass_ here (TVM's PassContext::PassEnabled)."""
        name = pass_.name
        if name in self.required_pass:
            return True
        if name in self.disabled_pass:
            return False
        return self.opt_level >= pass_.opt_level

    def __repr__(self):
        return (f"PassContext(opt_level={self.opt_level}, required_pass={sorted(self.required_pass)}, "
                f"disabled_pass={sorted(self.disabled_pass)})")


def _names(value, what):
    if value is None:
        return frozenset()
    if isinstance(value, str):
        raise TypeError(f"PassContext: {what} must be a list of pass names, got the str {value!r}")
    names = frozenset(value)
    bad = [n for n in names if not isinstance(n, str)]
    if bad:
        raise TypeError(f"PassContext: {what} must hold pass names (str), got {bad[0]!r}")
    return names


class Pass:
    """A module-to-module transformation: ``mod = pass_(mod)``.

    ``name`` is what PassContext's required/disabled lists match; ``opt_level`` the lowest context level at
    which a Sequential runs it (TVM's levels: 0 for passes a build always needs)."""

    def __init__(self, name, func, opt_level=0, required=()):
        self.name = name
        self.opt_level = opt_level
        self.required = tuple(required)
        self._func = func

    def __call__(self, mod):
        from .module import IRModule

        if not isinstance(mod, IRModule):
            raise TypeError(f"{self.name}: expected an IRModule, got {type(mod).__name__}")
        out = self._func(mod)
        if not isinstance(out, IRModule):
            raise TypeError(f"{self.name}: the pass returned {type(out).__name__}, not an IRModule")
        return out

    @property
    def info(self):
        """TVM's PassInfo fields (name, opt_level, required) on one object."""
        return self

    def __repr__(self):
        return f"{type(self).__name__}({self.name}, opt_level={self.opt_level})"


class Sequential(Pass):
    """Passes run in order, each only when the current PassContext enables it (see PassContext.pass_enabled).
    A Sequential itself has opt_level 0 unless given one, so nesting one in another runs it."""

    def __init__(self, passes=None, opt_level=0, name="sequential", required=()):
        passes = list(passes or [])
        bad = [p for p in passes if not isinstance(p, Pass)]
        if bad:
            raise TypeError(f"Sequential: every element must be a Pass, got {type(bad[0]).__name__}")
        self.passes = passes
        super().__init__(name, self._run, opt_level, required)

    def _run(self, mod):
        ctx = PassContext.current()
        for p in self.passes:
            if ctx.pass_enabled(p):
                mod = p(mod)
        return mod

    def __repr__(self):
        return f"Sequential([{', '.join(p.name for p in self.passes)}])"


def module_pass(pass_func=None, opt_level=0, name=None, required=()):
    """A Pass from a Python function ``mod -> mod`` (decorator when pass_func is omitted), as TVM's."""
    def make(f):
        return Pass(name or f.__name__, f, opt_level, required)

    return make(pass_func) if pass_func is not None else make
