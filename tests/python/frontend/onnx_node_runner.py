"""Run onnx's official backend tests through tvmlite: from_onnx -> build(target="debug") -> run -> compare.

Two kinds of cases:

* node cases (``test_abs``, ...): from the installed onnx package (onnx.backend.test.case.node.collect_testcases:
  each has a model and its input/output data sets, made in memory);
* model cases (``model:simple/test_sign_model``, ...): onnx's model suites ``simple``, ``pytorch-converted`` and
  ``pytorch-operator`` under ``onnx/backend/test/data``; each directory holds model.onnx and
  test_data_set_N/{input,output}_K.pb, read as onnx's runner reads them (tensors, sequences, optionals, by the
  type of graph input/output K), with rtol=1e-3, atol=1e-7 unless the case's data.json says otherwise.

Outputs are compared as onnx's own backend runner does (assert_similar_outputs): same count, shape and dtype,
allclose with the case's rtol/atol, exact for strings.

The cases that do not pass yet are listed in onnx_node_expected_failures.txt (``name  # reason``);
test_onnx_node.py checks the list both ways (a listed case that passes fails the suite).

CLI (for development; the pass/fail contract is test_onnx_node.py):
    python tests/python/frontend/onnx_node_runner.py [REGEX] [-v]     each case's outcome and a summary
    python tests/python/frontend/onnx_node_runner.py --write-expected  rewrite the expected-failure list from a
                                                                        full run (a still-failing case keeps its
                                                                        written reason)
"""
import functools
import glob
import json
import os
import pathlib
import re
import sys
import warnings

import numpy as np

EXPECTED_FILE = pathlib.Path(__file__).resolve().parent / "onnx_node_expected_failures.txt"
MODEL_SUITES = ("simple", "pytorch-converted", "pytorch-operator")
MODEL_PREFIX = "model:"


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
    if out.dtype.name == "bfloat16":  # as onnx's runner: two bfloat16 ULPs of relative tolerance
        rtol = max(rtol, 2 ** -6)
    if ref.dtype.kind not in "biufc":  # ml_dtypes (bfloat16, float8, int4): compare as float32
        out, ref = out.astype(np.float32), ref.astype(np.float32)
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol, err_msg=where)


class ModelCase:
    """A case of onnx's model suites: a directory with model.onnx and test_data_set_N/."""

    def __init__(self, suite, path):
        self.suite = suite
        self.path = path
        self.name = f"{MODEL_PREFIX}{suite}/{os.path.basename(path)}"
        self.rtol, self.atol = 1e-3, 1e-7
        data_json = os.path.join(path, "data.json")
        if os.path.exists(data_json):
            with open(data_json) as f:
                data = json.load(f)
            self.rtol, self.atol = data.get("rtol", self.rtol), data.get("atol", self.atol)

    @functools.cached_property
    def model(self):
        import onnx

        return onnx.load(os.path.join(self.path, "model.onnx"))

    @property
    def data_sets(self):
        graph = self.model.graph
        for data_dir in sorted(glob.glob(os.path.join(self.path, "test_data_set*"))):
            n_in = len(glob.glob(os.path.join(data_dir, "input_*.pb")))
            n_out = len(glob.glob(os.path.join(data_dir, "output_*.pb")))
            inputs = [_load_proto(os.path.join(data_dir, f"input_{i}.pb"), graph.input[i].type) for i in range(n_in)]
            outputs = [_load_proto(os.path.join(data_dir, f"output_{i}.pb"), graph.output[i].type)
                       for i in range(n_out)]
            yield inputs, outputs


def _load_proto(path, type_proto):
    import onnx
    from onnx import numpy_helper

    with open(path, "rb") as f:
        content = f.read()
    if type_proto.HasField("sequence_type"):
        proto = onnx.SequenceProto()
        proto.ParseFromString(content)
        return numpy_helper.to_list(proto)
    if type_proto.HasField("optional_type"):
        proto = onnx.OptionalProto()
        proto.ParseFromString(content)
        return numpy_helper.to_optional(proto)
    proto = onnx.TensorProto()
    proto.ParseFromString(content)
    return numpy_helper.to_array(proto)


@functools.lru_cache(maxsize=1)
def collect_models():
    """{name: ModelCase} of onnx's model suites (simple, pytorch-converted, pytorch-operator)."""
    import onnx.backend.test

    root = os.path.join(os.path.dirname(onnx.backend.test.__file__), "data")
    cases = {}
    for suite in MODEL_SUITES:
        for path in sorted(glob.glob(os.path.join(root, suite, "*"))):
            if os.path.exists(os.path.join(path, "model.onnx")):
                case = ModelCase(suite, path)
                cases[case.name] = case
    return cases


def collect_all():
    """Node cases and model cases by name."""
    return {**collect(), **collect_models()}


def run_case(case, target="debug"):
    """Run every data set of a case (node or model) built for target; raises on the first difference or error."""
    import tvmlite

    model = case.model
    mod, params = tvmlite.frontend.from_onnx(model)
    lib = tvmlite.build(mod, target=target, params=params)
    # Data files follow graph.input's order; an initializer listed as an input takes the file's value.
    input_names = [i.name for i in model.graph.input]
    if not isinstance(case, ModelCase):
        init_names = {i.name for i in model.graph.initializer}
        input_names = [n for n in input_names if n not in init_names]
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


def outcome(case, target="debug"):
    """None when the case passes, else a one-line reason."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            run_case(case, target)
        return None
    except Exception as err:  # noqa: BLE001 - any failure is the case's outcome
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        return f"{type(err).__name__}: {first}"[:300]


def read_expected(path=EXPECTED_FILE):
    """{case name: reason ('' when none is written)} from the expected-failure list (``name  # reason`` lines; a
    line that starts with # is a comment)."""
    expected = {}
    if not os.path.exists(path):
        return expected
    for lineno, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        name, _, reason = line.partition("#")
        name = name.strip()
        if not name:
            continue
        if name in expected:
            raise ValueError(f"{path}:{lineno}: {name} is listed twice")
        expected[name] = reason.strip()
    return expected


# A reason a run wrote ("ValueError: ...", "OpNotImplemented: ..."), refreshed on rewrite; prose stays.
_AUTO_REASON = re.compile(r"^[A-Z]\w*(Error|Exception|NotImplemented|Invalid|Required|Failed)\b.*?: ")


def write_expected(outcomes, path=EXPECTED_FILE):
    """Rewrite the list from {name: reason or None}: failing cases only. A listed case keeps a reason written in
    prose; a reason that is a run's error message ("ValueError: ...") is replaced by the new run's."""
    old = read_expected(path)
    lines = ["# onnx backend test cases (node cases, and model cases as model:<suite>/<name>) that tvmlite does not",
             "# pass yet: `name  # reason`. test_onnx_node.py runs every case: a listed case must fail (it is an",
             "# xfail), a passing listed case fails the suite. Rewrite from a run with",
             "#     python tests/python/frontend/onnx_node_runner.py --write-expected"]
    for name in sorted(outcomes):
        why = outcomes[name]
        if why is not None:
            written = old.get(name, "")
            reason = written if written and not _AUTO_REASON.match(written) else why.replace("#", "").replace("\n", " ")
            lines.append(f"{name}  # {reason}")
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


def main(argv):
    verbose = "-v" in argv
    write = "--write-expected" in argv
    args = [a for a in argv if a not in ("-v", "--write-expected")]
    if write and args:
        sys.exit("--write-expected runs every case; it takes no REGEX")
    pattern = re.compile(args[0]) if args else None
    cases = [c for n, c in sorted(collect_all().items()) if pattern is None or pattern.search(n)]
    outcomes = {}
    for case in cases:
        why = outcomes[case.name] = outcome(case)
        if verbose or why is not None:
            print(f"{'PASS' if why is None else 'FAIL'} {case.name}" + (f"  {why}" if why else ""))
    failed = sum(why is not None for why in outcomes.values())
    print(f"{len(cases) - failed} passed, {failed} failed")
    if write:
        write_expected(outcomes)
        print(f"wrote {failed} expected failures to {EXPECTED_FILE}")


if __name__ == "__main__":
    main(sys.argv[1:])
