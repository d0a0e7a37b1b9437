"""Imports go one way (issue 35, item 1): base <- models <- solvers <- kernels <- validation <- front door.

Every import is read from the sources with ``ast``, wherever it sits: at module top, inside a function
(the usual way to dodge a cycle), under ``if TYPE_CHECKING``, ``importlib.import_module`` on a
literal name, and a declaration's solver named as ``solved("oq.mean_wait", ...)`` (:mod:`switchq.solved`). A kernel never imports a solver, even though solvers sit below it: the simulated twin must
be independent of the analytic answer it checks. And no module reaches itself through others (no import
circles), counting the same imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The source folders of each package (setuptools package-dir: models/ is switchq.models, ...).
FOLDERS = {"switchq": ROOT / "switchq", "switchq.models": ROOT / "models", "switchq.solvers": ROOT / "solvers",
           "switchq.validate": ROOT / "validate"}
# The kernels' shared toolkit: what the simulators are built from, in the kernel layer with them.
KERNEL_TOOLKIT = ("switchq.validate.kernel", "switchq.validate.arrivals", "switchq.validate.arbitration",
                  "switchq.validate.events")
BASE = ("switchq.errors", "switchq.units")
LAYERS = ("base", "models", "solvers", "kernels", "validation", "front door")


def modules() -> dict:
    """``{module name: source path}`` of every module of the package."""
    found = {}
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if package == "switchq" and parts[0] in ("models", "solvers", "validate"):
                continue
            name = ".".join((package, *parts))
            found[name.removesuffix(".__init__")] = path
    return found


def layer(module: str) -> str:
    if module in BASE:
        return "base"
    for package in ("models", "solvers"):
        if module == f"switchq.{package}" or module.startswith(f"switchq.{package}."):
            return package
    if module.startswith("switchq.validate.arch") or module in KERNEL_TOOLKIT:
        return "kernels"
    if module == "switchq.validate" or module.startswith("switchq.validate."):
        return "validation"
    return "front door"


def _resolve(target: str, known: dict) -> str | None:
    """The module ``target`` names (``pkg.mod.attr`` -> ``pkg.mod``), or None if it is not ours."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def imports(name: str, path: Path, known: dict) -> list:
    """``[(imported module, line)]`` of ``name``'s every import of a module of the package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            # ``from pkg import mod`` imports the module pkg.mod; ``from mod import name`` the module mod.
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
              == "import_module" and node.args and isinstance(node.args[0], ast.Constant)):
            targets = [node.args[0].value]
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("solved", "Solver")
              and node.args and isinstance(node.args[0], ast.Constant)):
            # a declaration's solver named as "module.function" (switchq.solved), imported at its call
            targets = ["switchq.solvers." + node.args[0].value.rpartition(".")[0]]
        for t in targets:
            # A package is imported before any module in it, so a module naming its own package
            # (``from switchq import __version__``) adds no dependency.
            if t.startswith("switchq") and (m := _resolve(t, known)) and not (name + ".").startswith(m + "."):
                out.append((m, node.lineno))
    return out


def graph() -> dict:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def allowed(source: str, target: str) -> bool:
    a, b = layer(source), layer(target)
    if a == "kernels" and b == "solvers":
        return False        # the twin must be independent of what it checks
    return LAYERS.index(b) <= LAYERS.index(a)


def upward(g: dict) -> list:
    return sorted({f"{s} -> {t} (line {line}: {layer(s)} imports {layer(t)})"
                   for s, edges in g.items() for t, line in edges if not allowed(s, t)})


def circles(g: dict) -> list:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w, _ in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(out)


def test_the_reader_sees_imports_inside_functions_relative_ones_and_import_module_on_a_name(tmp_path):
    # The reader itself, on a hand-made module: each way of importing is one edge.
    src = tmp_path / "m.py"
    src.write_text("import importlib\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                   "    from switchq.solvers import hol\n"
                   "def f():\n    from . import kernel as K\n    from .arch import fifo\n"
                   "    importlib.import_module('switchq.validate.harness')\n"
                   "    solved('oq.mean_wait', 16, 0.5)\n")
    known = dict.fromkeys(["switchq.validate.m", "switchq.validate.kernel", "switchq.validate.arch",
                           "switchq.validate.arch.fifo", "switchq.solvers.hol", "switchq.validate.harness",
                           "switchq.solvers", "switchq.solvers.oq"])
    found = sorted(m for m, _ in imports("switchq.validate.m", src, known))
    assert found == ["switchq.solvers.hol", "switchq.solvers.oq", "switchq.validate.arch.fifo",
                     "switchq.validate.harness", "switchq.validate.kernel"]


def test_the_rule_refuses_what_the_issue_found():
    # Issue 35's examples, one per kind: a model importing the registry, a kernel importing its solver,
    # the harness reaching into the front door; and what stays allowed.
    assert not allowed("switchq.models.switch", "switchq.registry")
    assert not allowed("switchq.validate.arch.pfc", "switchq.solvers.pfc")
    assert not allowed("switchq.validate.harness", "switchq.registry")
    assert not allowed("switchq.solvers.hol", "switchq.validate.kernel")
    assert allowed("switchq.validate.arch.pfc", "switchq.models.pfc")
    assert allowed("switchq.validate.reports.hol", "switchq.solvers.hol")
    assert allowed("switchq.models.network", "switchq.errors")
    assert circles({"a": [("b", 1)], "b": [("c", 1)], "c": [("a", 1)], "d": [("a", 1)]}) == [["a", "b", "c"]]


@pytest.fixture(scope="module")
def package_graph():
    return graph()


def test_every_module_is_read(package_graph):
    # A package-dir change that hid a folder from the reader would pass every test below vacuously.
    for layer_name in LAYERS:
        assert sum(layer(m) == layer_name for m in package_graph) >= 2, layer_name
    assert len(package_graph) > 150


def test_imports_go_one_way(package_graph):
    assert upward(package_graph) == []


def test_no_module_imports_itself_through_others(package_graph):
    assert circles(package_graph) == []
