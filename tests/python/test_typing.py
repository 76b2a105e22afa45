"""tvmlite is typed for its users: `py.typed`, annotations on the public API and a stub of the FFI core
(tvmlite/_ffi/_cython/core.pyi). mypy checks the README's examples against them, and a misuse of the same API must
be reported (else the types would be Any and the first check empty)."""
import ast
import pathlib
import re
import subprocess
import sys

import pytest

from tvmlite._ffi import primitives

ROOT = pathlib.Path(__file__).resolve().parents[2]
STUB = ROOT / "tvmlite" / "_ffi" / "_cython" / "core.pyi"

MISUSE = '''\
import numpy as np
import tvmlite
from tvmlite.models import resnet

mod, params = tvmlite.frontend.from_onnx(resnet(depth=18), shape=3)
lib = tvmlite.build(mod, target=3, params=params)
gm = tvmlite.runtime.GraphModule(lib["default"](tvmlite.cpu(0)))
gm.set_input(0, np.zeros(3))
text: str = gm.get_output(0).numpy()
tvmlite.get_global_func(1)
maybe = tvmlite.get_global_func("testing.echo", allow_missing=True)
maybe(1)
'''
# line of MISUSE -> what mypy must say about it
MISUSE_ERRORS = {
    5: 'Argument "shape" to "from_onnx" has incompatible type "int"',
    6: 'Argument "target" to "build" has incompatible type "int"',
    8: 'Argument 1 to "set_input" of "GraphModule" has incompatible type "int"',
    9: "Incompatible types in assignment",
    10: 'No overload variant of "get_global_func" matches argument type "int"',
    12: '"None" not callable',
}


def _stub_names():
    """The stub's top-level names, and its classes' members."""
    names, members = set(), {}
    for node in ast.parse(STUB.read_text()).body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            members[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    return names, members


def test_core_stub_declares_exactly_the_primitives():
    names, members = _stub_names()
    assert names == set(primitives.PRIMITIVES)
    for cls, needed in primitives.CLASSES.items():
        assert set(needed) <= members[cls], cls


def test_the_package_ships_its_types():
    assert (ROOT / "tvmlite" / "py.typed").is_file()
    setup = (ROOT / "setup.py").read_text()
    assert '"py.typed"' in setup and '"_ffi/_cython/core.pyi"' in setup


def test_mypy_accepts_the_readme_examples_and_reports_a_misuse(tmp_path):
    pytest.importorskip("mypy")
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    assert len(blocks) >= 3
    files = []
    for i, block in enumerate(blocks):
        files.append(tmp_path / f"readme_{i}.py")
        files[-1].write_text(block)
    (tmp_path / "misuse.py").write_text(MISUSE)
    # silent: tvmlite's own modules are analysed for their types, their internals are not what this checks
    proc = subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-error-summary",
                           "--cache-dir", str(tmp_path / "cache"), *map(str, files), str(tmp_path / "misuse.py")],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    errors = [line for line in proc.stdout.splitlines() if ": error: " in line]
    assert [e for e in errors if "misuse.py" not in e] == [], proc.stdout + proc.stderr
    found = {int(e.split(":")[1]): e for e in errors}
    for line, message in MISUSE_ERRORS.items():
        assert line in found and message in found[line], (line, message, proc.stdout)
    assert sorted(found) == sorted(MISUSE_ERRORS), proc.stdout
