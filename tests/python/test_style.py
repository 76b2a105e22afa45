"""The tree passes its linter (ruff: pycodestyle and pyflakes, configured in pyproject.toml), so CI catches an
unused import, an undefined name or a 121-column line before review does."""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_ruff_finds_nothing():
    pytest.importorskip("ruff")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
