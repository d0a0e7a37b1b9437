"""A new architecture is new files only (CONTRIBUTING.md): nothing shared names one, everything derives.

The shared code (the front door, the harness, the report engine) names no declared
architecture, answer or report outside its docstring examples and the benchmarks that time chosen cases;
a declaration dropped into ``switchq.architectures`` (a copy of CIOQ under another name, in a fresh
interpreter) gets its ``simulate``, ``solve``, ``sweep`` and ``validate`` commands with no other edit; and
the guide's step-by-step architecture (the knockout switch), its code blocks written out as they are, does
too, measuring what its own analytic answer says; and the refusal the guide quotes for a default that does not
fit the size is the one given.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
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
              ROOT / "switchq" / "bench_scale.py", ROOT / "switchq" / "sweeps" / "bench.py"}


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
    # Help wraps the list of names anywhere, even inside one: read it with the white space taken out.
    assert all("cioq_copy" in "".join(out[k][1].split()) for k in ("validate", "list"))


# --------------------------------------------------------------------------- the guide's step-by-step architecture

GUIDE = ROOT / "CONTRIBUTING.md"
STEPS = "## Step by step"
# The files the guide's architecture is made of, and the package each extends.
PACKAGES = {"models/knockout.py": "switchq.models", "solvers/knockout.py": "switchq.solvers",
            "validate/arch/knockout.py": "switchq.validate.arch",
            "switchq/architectures/knockout.py": "switchq.architectures"}


def guide_steps(text: str) -> tuple:
    """``(files, commands)`` of the guide's step-by-step section: the first ```python block under a heading that
    names a file (`` `models/knockout.py` ``) is that file, whole; the ``$ switchq`` lines of its ```console
    blocks are the commands it runs (as argument lists, without ``switchq``)."""
    section = text[text.index(STEPS):]
    section = section[:section.index("\n## ", len(STEPS))]
    files, commands, path, fence, block = {}, [], None, None, []
    for line in section.splitlines():
        if fence is None:
            if line.startswith("#"):
                named = re.search(r"`([\w/]+\.py)`", line)
                path = named.group(1) if named else None
            elif line.strip().startswith("```"):
                fence, block = line.strip()[3:], []
            continue
        if line.strip() != "```":
            block.append(line)
            continue
        if fence == "python" and path is not None:
            files[path] = "\n".join(block) + "\n"
            path = None                         # a later block under the same heading is a snippet
        elif fence == "console":
            commands += [shlex.split(c[2:])[1:] for c in block if c.startswith("$ switchq ")]
        fence = None
    return files, commands


# Runs commands as the `switchq` entry point does (one-line refusals, exit codes), with the guide's files added to
# the packages they belong to, as if dropped into the tree.
GUIDE_PROBE = """
import contextlib, io, json, sys
from importlib import import_module
from pathlib import Path

scratch, packages, commands = Path(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3])
for path, package in packages.items():
    import_module(package).__path__.append(str(scratch / Path(path).parent))
from switchq.cli import main

out = []
for args in commands:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            main(args)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else int(e.code is not None)
    out.append([code, stdout.getvalue(), stderr.getvalue()])
print(json.dumps(out))
"""


def _as_json(args: list) -> list:
    # One process: worker processes would not see the scratch files, which live in this process's package paths.
    return args + ["--json"] + (["-j", "1"] if args[0] in ("validate", "sweep") else [])


def test_the_guide_builds_an_architecture_with_no_other_edit(tmp_path):
    files, commands = guide_steps(GUIDE.read_text(encoding="utf-8"))
    assert set(files) == set(PACKAGES), sorted(files)
    assert [c[:2] for c in commands] == [["solve", "knockout"], ["simulate", "knockout"], ["validate", "knockout"]]
    tree = tmp_path / "tree"
    for path, code in files.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(code)
    refused = ["simulate", "knockout", "--ports", "4", "--concentrator", "8", "--load", "0.5"]
    runs = [_as_json(c) for c in commands] + [
        _as_json(["simulate", "knockout", "--ports", "1", "--load", "0.5", "--slots", "300", "-r", "5"]), refused,
        _as_json(["sweep", "knockout", "--vary", "load=0.5,0.9", "--ports", "8", "--no-store"]),
        ["simulate", "--help"], ["simulate", "knockout", "--help"]]
    # A Numba cache of its own: a kernel's cache folder is named after its source folder, new for every run of
    # this test, so none is left behind in the user's cache.
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "COLUMNS": "200"}
    # Run beside the tree, not in it: its switchq/ folder would shadow the package.
    p = subprocess.run([sys.executable, "-c", GUIDE_PROBE, str(tree), json.dumps(PACKAGES), json.dumps(runs)],
                       capture_output=True, text=True, timeout=900, cwd=tmp_path, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    ran = json.loads(p.stdout.strip().splitlines()[-1])
    solved, simulated, validated, one_port, too_big, swept, listing, helped = ran
    for args, (code, out, err) in zip(runs, ran):
        assert code == (2 if args == refused else 0), (args, out[-1500:], err[-1500:])

    analytic = json.loads(solved[1])
    assert analytic["concentrator"] == 2 and abs(analytic["loss_probability"] - 0.077429) < 5e-7
    # The simulated loss holds the exact one, and the knocked-out cells (a loss by design) leave the run stable.
    sim = json.loads(simulated[1])
    low, high = sim["loss_probability_ci95"]
    assert low <= analytic["loss_probability"] <= high
    assert sim["unstable"] is False and sim["stability_storage"] == "passed"
    rows = json.loads(validated[1])["rows"]
    assert [r["quantity"] for r in rows] == ["loss_probability", "mean_wait"]
    assert all(r["verdict"] == "agree" for r in rows), rows
    # A default that depends on the size (L = min(8, N): 1 at one port) and a range that does (8 refused at 4).
    assert json.loads(one_port[1])["concentrator"] == 1
    assert too_big[2].strip() == "switchq: error: --concentrator: got 8; allowed: an integer in [1, 4]"
    assert len(json.loads(swept[1])) == 2
    assert "knockout" in listing[1] and "[default: min(8, N)]" in helped[1]


def test_a_default_that_does_not_fit_the_size_is_refused_in_one_line_as_the_guide_quotes():
    # CIOQ's --speedup keeps its fixed default 2 (points stored with it keep their inputs); at one port the guide
    # quotes the refusal, which names the option, the value and the range.
    guide = " ".join(GUIDE.read_text(encoding="utf-8").split())
    quoted = re.search(r"`switchq solve cioq --ports 1` says `([^`]+)`", guide).group(1)
    for verb in (["solve", "cioq", "--ports", "1"], ["simulate", "cioq", "--ports", "1", "--load", "0.5"]):
        p = subprocess.run([sys.executable, "-m", "switchq", *verb], capture_output=True, text=True, timeout=300)
        assert p.returncode == 2 and p.stderr == f"switchq: error: {quoted}\n", (verb, p.stderr)
