"""The pass infrastructure: Pass objects, Sequential and PassContext (opt_level gating, required and disabled
passes, nesting), and the type check every pass makes of its input."""
import threading

import numpy as np
import pytest

import tvmlite
from tvmlite import ir, relay
from tvmlite.ir import transform as ir_transform


def _recorder(name, opt_level, log):
    def run(mod):
        log.append(name)
        return mod

    return ir_transform.Pass(name, run, opt_level=opt_level)


def _mod():
    x = relay.var("x", shape=(2,))
    return ir.IRModule.from_expr(relay.Function([x], relay.nn.relu(x)))


def test_tvmlite_transform_is_the_ir_transform_module():
    assert tvmlite.transform is ir_transform
    assert tvmlite.transform.PassContext is relay.transform.PassContext
    assert relay.transform.Sequential is ir_transform.Sequential


def test_sequential_runs_passes_by_opt_level():
    log = []
    seq = tvmlite.transform.Sequential([_recorder("A", 0, log), _recorder("B", 2, log), _recorder("C", 3, log)])
    seq(_mod())
    assert log == ["A", "B"]  # the default context is opt_level 2
    log.clear()
    with tvmlite.transform.PassContext(opt_level=3):
        seq(_mod())
    assert log == ["A", "B", "C"]
    log.clear()
    with tvmlite.transform.PassContext(opt_level=0):
        seq(_mod())
    assert log == ["A"]


def test_disabled_and_required_passes():
    log = []
    seq = tvmlite.transform.Sequential([_recorder("A", 0, log), _recorder("B", 2, log), _recorder("C", 3, log)])
    with tvmlite.transform.PassContext(opt_level=3, disabled_pass=["A", "C"]):
        seq(_mod())
    assert log == ["B"]
    log.clear()
    with tvmlite.transform.PassContext(opt_level=0, required_pass=["C"]):
        seq(_mod())
    assert log == ["A", "C"]
    log.clear()
    # A pass called directly always runs, whatever the context says.
    with tvmlite.transform.PassContext(opt_level=0, disabled_pass=["B"]):
        _recorder("B", 2, log)(_mod())
    assert log == ["B"]


def test_contexts_nest_and_restore():
    outer_default = tvmlite.transform.PassContext.current()
    assert outer_default.opt_level == 2
    with tvmlite.transform.PassContext(opt_level=3) as outer:
        assert tvmlite.transform.PassContext.current() is outer
        with tvmlite.transform.PassContext(opt_level=1, disabled_pass=["X"]) as inner:
            assert tvmlite.transform.PassContext.current() is inner
        assert tvmlite.transform.PassContext.current() is outer
        with pytest.raises(RuntimeError):
            with tvmlite.transform.PassContext(opt_level=0):
                raise RuntimeError("inside")
        assert tvmlite.transform.PassContext.current() is outer
    assert tvmlite.transform.PassContext.current() is outer_default


def test_contexts_are_per_thread():
    seen = []
    with tvmlite.transform.PassContext(opt_level=3):
        t = threading.Thread(target=lambda: seen.append(tvmlite.transform.PassContext.current().opt_level))
        t.start()
        t.join()
    assert seen == [2]


def test_nested_sequential_and_real_passes_by_level():
    x = relay.var("x", shape=(1, 4))
    one = relay.const(np.ones((1, 4), "float32"))
    mod = ir.IRModule.from_expr(relay.Function([x], relay.add(x, relay.add(one, one))))
    seq = tvmlite.transform.Sequential([relay.transform.InferType(),
                                        tvmlite.transform.Sequential([relay.transform.FoldConstant()])])
    with tvmlite.transform.PassContext(opt_level=1):
        kept = seq(mod)
    with tvmlite.transform.PassContext(opt_level=2):
        folded = seq(mod)
    assert str(kept).count("add(") == 2
    assert str(folded).count("add(") == 1


def test_pass_levels_and_names_are_tvms():
    t = relay.transform
    levels = {p.name: p.opt_level for p in [t.SimplifyInference(), t.SimplifyExpr(), t.FoldConstant(),
                                            t.FoldScaleAxis(), t.DeadCodeElimination(), t.FuseOps(), t.InferType()]}
    assert levels == {"SimplifyInference": 0, "SimplifyExpr": 0, "FoldConstant": 2, "FoldScaleAxis": 3,
                      "DeadCodeElimination": 1, "FuseOps": 0, "InferType": 0}


@pytest.mark.parametrize("make", ["InferType", "SimplifyInference", "SimplifyExpr", "FoldConstant", "FoldScaleAxis",
                                  "DeadCodeElimination", "FuseOps"])
def test_passes_reject_non_modules(make):
    pass_ = getattr(relay.transform, make)()
    x = relay.var("x", shape=(2,))
    with pytest.raises(TypeError, match=f"^{make}: expected an IRModule, got Function"):
        pass_(relay.Function([x], x))
    with pytest.raises(TypeError, match=f"^{make}: expected an IRModule, got NoneType"):
        pass_(None)


def test_bad_context_arguments():
    with pytest.raises(ValueError, match="opt_level must be an int >= 0"):
        tvmlite.transform.PassContext(opt_level=-1)
    with pytest.raises(TypeError, match="disabled_pass must be a list of pass names"):
        tvmlite.transform.PassContext(disabled_pass="FoldConstant")
    with pytest.raises(TypeError, match="every element must be a Pass"):
        tvmlite.transform.Sequential([relay.transform.FoldConstant, 3])
    with pytest.raises(TypeError, match="fuse_opt_level must be an int"):
        relay.transform.FuseOps("2")


def test_module_pass_decorator():
    @tvmlite.transform.module_pass(opt_level=1, name="Identity")
    def identity(mod):
        return mod

    assert identity.name == "Identity" and identity.opt_level == 1
    mod = _mod()
    assert identity(mod) is mod

    @tvmlite.transform.module_pass
    def broken(mod):
        return None

    with pytest.raises(TypeError, match="broken: the pass returned NoneType"):
        broken(mod)
