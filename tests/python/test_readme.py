"""The README's tour runs as written (it is the first thing a user copies)."""
import os
import pathlib
import re
import subprocess
import sys

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"

CHECKS = """
assert pt.y == 2.5
assert tvmlite.structural_equal(p, tvmlite.load_json(tvmlite.save_json(p)))
print("tour ok")
"""


def test_readme_tour_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    # In a fresh interpreter: this suite has loaded tvmlite.testing (conftest.py), a reader's session has not.
    proc = subprocess.run([sys.executable, "-c", blocks[0] + CHECKS], capture_output=True, text=True, timeout=120,
                          cwd=README.parent)
    assert proc.returncode == 0 and proc.stdout.strip() == "tour ok", proc.stdout + proc.stderr[-3000:]


def test_readme_cpu_example_runs(tmp_path):
    """The "Compile and run on the CPU" example, as written, in a fresh interpreter (it writes its library to cwd)."""
    blocks = [b for b in re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S) if 'target="cpu"' in b]
    assert len(blocks) == 1, "README has one cpu-target example"
    checks = "\nassert lib2.get_graph_json() == lib.get_graph_json()\nprint('cpu ok')\n"
    env = {**os.environ, "PYTHONPATH": str(README.parent)}
    proc = subprocess.run([sys.executable, "-c", blocks[0] + checks], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env=env)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("cpu ok"), proc.stdout + proc.stderr[-3000:]
    assert (tmp_path / "resnet18.tvmlite").is_file()
