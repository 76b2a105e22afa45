"""Run onnx's official node tests through tvmlite: from_onnx -> build(target="debug") -> run -> compare.

The cases come from the installed onnx package (onnx.backend.test.case.node.collect_testcases: each has a model and
its input/output data sets, made in memory). Outputs are compared as onnx's own backend runner does
(assert_similar_outputs): same count, shape and dtype, allclose with the case's rtol/atol, exact for strings.

CLI (for development; the pass/fail contract is test_onnx_node.py):
    python tests/python/frontend/onnx_node_runner.py [REGEX] [-v]
prints each case's outcome and a summary.
"""
import functools
import re
import sys
import warnings

import numpy as np


@functools.lru_cache(maxsize=1)
def collect():
    """{name: TestCase} of every onnx node test."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return {c.name: c for c in collect_testcases(None)}


def _as_numpy(value):
    if isinstance(value, (list, tuple)):
        return [_as_numpy(v) for v in value]
    if value is None or isinstance(value, np.ndarray):
        return value
    return value.numpy()


def _normalize(value):
    """A data set entry as numpy: the cases may hold TensorProto objects (onnx's runner converts them the same way)."""
    import onnx

    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    return value


def _assert_similar(ref, out, rtol, atol, where):
    if isinstance(ref, (list, tuple)):
        assert isinstance(out, (list, tuple)), f"{where}: expected a sequence, got {type(out).__name__}"
        assert len(out) == len(ref), f"{where}: sequence length {len(out)}, expected {len(ref)}"
        for j, (r, o) in enumerate(zip(ref, out)):
            _assert_similar(r, o, rtol, atol, f"{where}[{j}]")
        return
    if ref is None:
        assert out is None, f"{where}: expected an empty optional"
        return
    ref = np.asarray(ref)
    assert isinstance(out, np.ndarray), f"{where}: expected an array, got {type(out).__name__}"
    assert out.shape == ref.shape, f"{where}: shape {out.shape}, expected {ref.shape}"
    if ref.dtype == object:
        np.testing.assert_array_equal(out, ref, err_msg=where)
        return
    assert out.dtype == ref.dtype, f"{where}: dtype {out.dtype}, expected {ref.dtype}"
    if ref.dtype.kind not in "biufc":  # ml_dtypes (bfloat16, float8, int4): compare as float32
        out, ref = out.astype(np.float32), ref.astype(np.float32)
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol, err_msg=where)


def run_case(case):
    """Run every data set of a case; raises on the first difference or error."""
    import tvmlite

    model = case.model
    init_names = {i.name for i in model.graph.initializer}
    input_names = [i.name for i in model.graph.input if i.name not in init_names]
    mod, params = tvmlite.frontend.from_onnx(model)
    lib = tvmlite.build(mod, target="debug", params=params)
    for k, (inputs, ref_outputs) in enumerate(case.data_sets):
        inputs, ref_outputs = [_normalize(v) for v in inputs], [_normalize(v) for v in ref_outputs]
        gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
        for name, value in zip(input_names, inputs):
            gm.set_input(name, value)
        gm.run()
        outs = [_as_numpy(gm.get_output(i)) for i in range(gm.get_num_outputs())]
        assert len(outs) == len(ref_outputs), f"{len(outs)} outputs, expected {len(ref_outputs)}"
        for i, (ref, out) in enumerate(zip(ref_outputs, outs)):
            _assert_similar(ref, out, case.rtol, case.atol, f"data set {k}, output {i}")


def outcome(case):
    """None when the case passes, else a one-line reason."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            run_case(case)
        return None
    except Exception as err:  # noqa: BLE001 - any failure is the case's outcome
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        return f"{type(err).__name__}: {first}"[:300]


def main(argv):
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    pattern = re.compile(args[0]) if args else None
    cases = [c for n, c in sorted(collect().items()) if pattern is None or pattern.search(n)]
    failed = 0
    for case in cases:
        why = outcome(case)
        failed += why is not None
        if verbose or why is not None:
            print(f"{'PASS' if why is None else 'FAIL'} {case.name}" + (f"  {why}" if why else ""))
    print(f"{len(cases) - failed} passed, {failed} failed")


if __name__ == "__main__":
    main(sys.argv[1:])
