"""Test oracles are installed by the test extra, and in CI a missing one fails the run instead of skipping.

A fresh venv made with the README's test command must compare the compiled path with onnxruntime, not skip those
tests (they once all skipped there, and CI passed only because its machine had onnxruntime by hand).
"""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_test_extra_installs_the_oracles():
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    names = {req.split(";")[0].split("=")[0].split(">")[0].split("<")[0].strip().lower() for req in extra}
    assert {"onnxruntime", "onnx", "psutil", "pytest"} <= names


@pytest.mark.parametrize("ci", ["true", ""])
def test_missing_oracle_fails_in_ci(tmp_path, ci):
    """A module-level and a test-level importorskip of a missing module: skips locally, failures in CI."""
    skip = 'pytest.importorskip("tvmlite_no_such_oracle")'
    (tmp_path / "test_module_oracle.py").write_text(f"import pytest\n{skip}\n\n\ndef test_a():\n    pass\n")
    (tmp_path / "test_test_oracle.py").write_text(f"import pytest\n\n\ndef test_b():\n    {skip}\n")
    env = dict(os.environ, CI=ci, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests" / "python")]))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest",
                           "--continue-on-collection-errors", "."],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    if ci:
        assert proc.returncode == 1, proc.stdout
        assert proc.stdout.count("CI=true: the test extra must install every oracle") >= 2, proc.stdout
        assert "1 failed, 1 error" in proc.stdout, proc.stdout
    else:
        assert proc.returncode == 0, proc.stdout
        assert "2 skipped" in proc.stdout, proc.stdout
