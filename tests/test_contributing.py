"""A new architecture is new files only (CONTRIBUTING.md): nothing shared names one, everything derives.

Two checks. The shared code (the front door, the harness, the report engine) names no declared
architecture, answer or report outside its docstring examples and the benchmarks that time chosen cases;
and a declaration dropped into ``switchq.architectures`` (a copy of CIOQ under another name, in a fresh
interpreter) gets its ``simulate``, ``solve``, ``sweep`` and ``validate`` commands with no other edit.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from switchq.registry import declarations

ROOT = Path(__file__).resolve().parents[1]
# Shared code: every module a new architecture must not have to edit.
SHARED = [*(ROOT / "switchq").glob("*.py"), *(ROOT / "switchq" / "sweeps").glob("*.py"),
          *(ROOT / "validate").glob("*.py"), ROOT / "validate" / "reports" / "__init__.py",
          ROOT / "validate" / "reports" / "claims.py"]
# Benchmarks time named cases (a wall time of `switchq solve hol`): they measure, they do not dispatch.
BENCHMARKS = {ROOT / "switchq" / "bench.py", ROOT / "switchq" / "bench_booksim.py",
              ROOT / "switchq" / "sweeps" / "bench.py"}


def _names() -> set:
    out = set()
    for d in declarations().values():
        out |= {d.name, *(a.name for a in d.answers), *(name for name, _ in d.report)}
    return out


def _docstring_lines(tree) -> set:
    """Lines of the docstrings of a module and its classes and functions (their examples run real models)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
                    isinstance(first.value.value, str):
                out |= set(range(first.lineno, first.end_lineno + 1))
    return out


def test_shared_code_names_no_architecture():
    names = _names() - {"link"}   # "link" is also a family, which the declaration type lists
    found = []
    for path in SHARED:
        if path in BENCHMARKS:
            continue
        text = path.read_text()
        skip = _docstring_lines(ast.parse(text))
        for number, line in enumerate(text.splitlines(), 1):
            if number in skip:
                continue
            for name in names:
                if re.search(rf"[\"']{re.escape(name)}[\"']", line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {name}")
    assert not found, found


def test_every_package_is_installed():
    # A new subpackage (validate/arch/flit/) must be in pyproject.toml's list, or a wheel leaves it out.
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setup["packages"])
    found = set()
    for name, folder in setup["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join((name, *rel.parts)))
    assert found <= listed, sorted(found - listed)


COPY = '''
from dataclasses import replace
from switchq.architectures.cioq import DECLARATION as CIOQ

# CIOQ again under another name: a new architecture's declaration, reusing CIOQ's model and kernel.
DECLARATION = replace(
    CIOQ, name="cioq_copy", order=999, architectures=(), report=(), bench=(),
    answers=tuple(replace(a, name="cioq_copy") for a in CIOQ.answers),
    cases=tuple(replace(c, suite="cioq_copy") for c in CIOQ.cases[:1]),
    examples=tuple(e.replace("simulate cioq", "simulate cioq_copy") for e in CIOQ.examples))
'''

PROBE = '''
import json, sys
import switchq.architectures as A
A.__path__.append(sys.argv[1])
from click.testing import CliRunner
from switchq.cli import app

def run(*args):
    r = CliRunner().invoke(app, list(args))
    return r.exit_code, r.output

out = {
    "simulate": run("simulate", "cioq_copy", "--ports", "4", "--load", "0.5", "--slots", "300", "-r", "5", "--json"),
    "solve": run("solve", "cioq_copy", "--ports", "4", "--json"),
    "sweep": run("sweep", "cioq_copy", "--vary", "load=0.3,0.5", "--ports", "4", "--simulate", "--slots", "300",
                 "-r", "5", "-j", "1", "--no-store", "--json"),  # -j 1: worker processes lack the copy
    "validate": run("validate", "--help"),
    "list": run("simulate", "--help"),
}
print(json.dumps(out))
'''


def test_a_new_declaration_needs_no_other_file(tmp_path):
    (tmp_path / "cioq_copy.py").write_text(COPY)
    p = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    for verb in ("simulate", "solve", "sweep"):
        assert out[verb][0] == 0, (verb, out[verb][1][-400:])
    simulated = json.loads(out["simulate"][1])
    assert simulated["n_ports"] == 4 and 0.45 < simulated["throughput"] < 0.55
    assert len(json.loads(out["sweep"][1])) == 2
    assert "cioq_copy" in out["validate"][1] and "cioq_copy" in out["list"][1]
