"""The tree passes its linter (ruff: pycodestyle and pyflakes, configured in pyproject.toml), so CI catches an
unused import, an undefined name or a 121-column line before review does; the C and C++ sources are in
.clang-format's style."""
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_ruff_finds_nothing():
    pytest.importorskip("ruff")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_clang_format_finds_nothing():
    # The C and C++ sources in .clang-format's style, checked by the clang-format the test extra pins (versions
    # format differently); fix a failure with `clang-format -i FILE`.
    binary = shutil.which("clang-format")
    assert binary is not None, "clang-format is not installed: pip install -e '.[test]' installs it"
    files = sorted(str(p.relative_to(ROOT)) for top in ("csrc", "tvmlite", "examples") for p in (ROOT / top).rglob("*")
                   if p.suffix in (".cc", ".h", ".c", ".inc") and not p.with_suffix(".pyx").exists())  # not Cython's
    assert len(files) > 200, files  # the walk found the tree
    proc = subprocess.run([binary, "--dry-run", "--Werror", *files], capture_output=True, text=True, timeout=600,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-4000:]
