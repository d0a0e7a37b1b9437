"""No function outside the tests is over 150 lines (issue 35): one that long holds two things.

Counted as the ``def`` statement's whole span, decorators excluded, docstring and comments included, read
from the sources with ``ast`` (nested functions count on their own and inside their parent). The kernels'
cycle loops are no exception: they are pipelines of named phases, compiled with
``validate/arch/phase_pipeline.PhasePipeline`` where a cycle is too short to pay a reference count per array
a phase is given.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 150


def long_functions(root: Path = ROOT, limit: int = LIMIT) -> dict:
    """``{"path:line function": lines}`` of every function over ``limit`` lines in the package's sources."""
    out = {}
    for folder in ("switchq", "models", "solvers", "validate"):
        for path in sorted((root / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > limit:
                        out[f"{path.relative_to(root).as_posix()}:{node.lineno} {node.name}"] = lines
    return out


def test_no_function_outside_the_tests_is_over_150_lines():
    assert long_functions() == {}


def test_the_count_sees_a_long_function(tmp_path):
    # The counter itself, on a hand-made tree: 151 lines fail, 150 pass.
    for folder in ("switchq", "models", "solvers", "validate"):
        (tmp_path / folder).mkdir()
    body = "".join("    x = 1\n" for _ in range(149))
    (tmp_path / "switchq" / "a.py").write_text("def fits():\n" + body + "\n\ndef over():\n" + body + "    x = 2\n")
    assert long_functions(tmp_path) == {"switchq/a.py:153 over": 151}
