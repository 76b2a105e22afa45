"""GraphModule: the user-facing wrapper of an executor module (TVM's ``graph_executor.GraphModule``).

    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    gm.set_input("input", x)          # or gm.set_input(**params), gm.set_input(input=x)
    gm.run()
    y = gm.get_output(0).numpy()

The wrapped module provides ``set_input(name, value)``, ``run()``, ``get_output(i)``, ``get_num_outputs()``,
``get_input(name)`` and ``get_input_names()``; the debug executor (tvmlite.relay.backend.debug_executor) is one,
the compiled graph executor of the next layer another.
"""

__all__ = ["GraphModule"]


_NO_VALUE = object()


class GraphModule:
    """Run a built model: set inputs, run, read outputs."""

    def __init__(self, module):
        for method in ("set_input", "run", "get_output", "get_num_outputs", "get_input"):
            if not callable(getattr(module, method, None)):
                raise TypeError(f"GraphModule: {type(module).__name__} is not an executor module (no {method}())")
        self.module = module

    def set_input(self, key=None, value=_NO_VALUE, **params):
        """Set one input by name (``set_input("x", array)``) and/or several by keyword (``set_input(**params)``).
        None is a value: an empty optional input."""
        if key is not None:
            if value is _NO_VALUE:
                raise TypeError("GraphModule.set_input: a value is needed for input " + repr(key))
            self.module.set_input(key, value)
        for name, v in params.items():
            self.module.set_input(name, v)

    def run(self, **inputs):
        """Run the model (after setting ``inputs``, if given)."""
        if inputs:
            self.set_input(**inputs)
        self.module.run()

    def get_output(self, index):
        """Output ``index`` as an NDArray (a numpy array for dtypes NDArray cannot hold, e.g. strings)."""
        return self.module.get_output(index)

    def get_num_outputs(self):
        return self.module.get_num_outputs()

    def get_input(self, name):
        """The value set for input ``name``."""
        return self.module.get_input(name)

    def get_input_names(self):
        return list(self.module.get_input_names())

    def __getitem__(self, name):
        return getattr(self, name)
