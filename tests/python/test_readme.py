"""The README's tour runs as written (it is the first thing a user copies)."""
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_tour_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    namespace = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)  # noqa: S102 - our own documentation
    assert namespace["pt"].y == 2.5
    assert namespace["tvmlite"].structural_equal(namespace["p"], namespace["tvmlite"].load_json(
        namespace["tvmlite"].save_json(namespace["p"])))
