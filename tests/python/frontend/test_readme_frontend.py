"""The README's ONNX frontend example runs as written, and prints the IR its comment shows."""
import pathlib
import re
import subprocess
import sys


import onnx  # noqa: E402,F401  (a dependency of tvmlite: a missing one is an error, not a skip)

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"

CHECKS = """
assert np.array_equal(gm.get_output(0).numpy(), [[1, 0, 2, 0], [1, 0, 2, 0]])
print("frontend example ok")
"""


def test_readme_frontend_example():
    text = README.read_text()
    section = text[text.index("## ONNX frontend"):]
    section = section[:section.index("\n## ", 1)]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1, "the ONNX frontend section has one python example"
    code = blocks[0]
    proc = subprocess.run([sys.executable, "-c", code + CHECKS], capture_output=True, text=True, timeout=120,
                          cwd=README.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert lines[-1] == "frontend example ok"
    # the comment under print(mod) is what print(mod) prints
    after = code[code.index("print(mod)\n") + len("print(mod)\n"):]
    shown = [line[2:] for line in after.splitlines() if line.startswith("# ")]
    assert lines[:-1] == shown
