"""run_relay(func_or_mod, inputs, params=None) -> the numpy outputs of a relay function or module built for the
debug target and run through GraphModule, as a user would. inputs: {name: array}, or a list in the order of the
module's inputs. conftest.py's run_relay fixture is this function.
"""
import tvmlite
from tvmlite import ir


def run_relay(func_or_mod, inputs, params=None):
    mod = func_or_mod if isinstance(func_or_mod, ir.IRModule) else ir.IRModule.from_expr(func_or_mod)
    lib = tvmlite.build(mod, target="debug", params=params)
    gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
    if not isinstance(inputs, dict):
        inputs = dict(zip(gm.get_input_names(), inputs))
    gm.set_input(**inputs)
    gm.run()
    outs = [gm.get_output(i) for i in range(gm.get_num_outputs())]
    return [o.numpy() if hasattr(o, "numpy") else o for o in outs]
