"""The source files a module's code depends on, read from its ``import`` statements.

A compiled kernel carries the code of every helper it calls or inlines, and a simulated figure depends on the
harness and the models too; Numba's cache checks only the kernel's own file. :func:`module_files` follows
imports through the files themselves, without importing anything: at the top of a module and inside its
functions, absolute and relative, transitively, within the layers named (by default the simulator's own:
this package, :mod:`switchq.models` and :mod:`switchq.solvers`; an import of the front door is not
followed, the front door keys its own part). :func:`digest` names those files' contents, for the kernels'
cache folders (:mod:`.cache`) and the result store's :func:`~switchq.validate.simulator_version`.

What the reading cannot see, it takes whole: a package that finds its names at run time (a module
``__getattr__``, like :mod:`switchq.models`) stands for all of its modules when a name is taken from it that is
not a module. Imports by computed name (``importlib.import_module(name)``) are not seen.

Examples
--------
>>> files = module_files(["switchq.validate.arch.oq"])
>>> {"switchq.validate.arch.oq", "switchq.validate.kernel", "switchq.validate.arrivals"} <= set(files)
True
>>> any(name.startswith("switchq.architectures") for name in files)   # the front door is not followed
False
>>> len(digest(files))
64
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import json
import os
import sys
import time
from importlib.machinery import PathFinder
from pathlib import Path

__all__ = ["LAYERS", "within", "module_files", "memo_file", "package_modules", "digest"]

# The simulator's layers: this package (``switchq.validate``, or ``validate`` when a tool imports the folder as
# it is) and the two below it; the front door above them keys its own part.
LAYERS = tuple(dict.fromkeys((__package__, "switchq.validate", "switchq.models", "switchq.solvers")))

# When this process started to import the simulator (the package's own import): a source changed after it may
# differ from the code this process runs, so a digest that reads one is this process's alone (see digest).
_STARTED = sys.modules[__package__]._IMPORTED_AT


def within(name: str, layers=LAYERS) -> bool:
    """Whether module ``name`` is one of ``layers`` or inside one.

    >>> within("switchq.validate.arch.oq"), within("switchq.registry")
    (True, False)
    """
    return any(name == layer or name.startswith(layer + ".") for layer in layers)


def _spec(name: str):
    """``name``'s module spec, found without running any module (None: no such module)."""
    module = sys.modules.get(name)
    if module is not None and getattr(module, "__spec__", None) is not None:
        return module.__spec__
    parent = name.rpartition(".")[0]
    if not parent or parent in sys.modules:
        # Every finder is asked (an editable install maps switchq's subpackages to folders outside switchq/).
        try:
            return importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
    outer = _spec(parent)
    if outer is None or not outer.submodule_search_locations:
        return None
    return PathFinder.find_spec(name, list(outer.submodule_search_locations))


def _statements(body):
    """Every statement in ``body``, nested ones too (an import is a statement: expressions need no visit)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            yield from _statements(getattr(node, field, ()))


@functools.lru_cache(maxsize=None)
def _read(path: str, name: str, package: bool) -> tuple[tuple, bool]:
    """The imports of module ``name`` (its source at ``path``) as (module, names or None for "any name"), every
    one in the file (functions' too), relative ones resolved; and whether it finds names at run time."""
    tree = ast.parse(Path(path).read_bytes(), path)
    here = name if package else name.rpartition(".")[0]
    wanted = []
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                # ``import a.b.c`` binds ``a``, through which a.b and a.b.c are reached; ``as`` binds a.b.c alone.
                firsts = [len(parts)] if alias.asname else range(1, len(parts) + 1)
                wanted += [(".".join(parts[:k]), None) for k in firsts]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = here.rsplit(".", node.level - 1)[0]    # level 1: this package; 2: its parent ...
                base = f"{stem}.{base}" if base else stem
            names = tuple(a.name for a in node.names)
            wanted.append((base, None if "*" in names else names))
    lazy = any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body)
    return tuple(wanted), lazy


def package_modules(name: str) -> list[str]:
    """The names of package ``name``'s modules at any depth, read from its folders (nothing is imported).

    >>> "switchq.validate.arch.flit.rules" in package_modules("switchq.validate.arch")
    True
    """
    spec = _spec(name)
    found = []
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for path in sorted(Path(folder).rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            found.append(".".join((name, *parts[:-1]) if parts[-1] == "__init__" else (name, *parts)))
    return found


def module_files(names, layers=LAYERS, memo: Path | None = None) -> dict[str, Path]:
    """Module name -> source file of modules ``names`` and of every module they import within ``layers``, at
    any depth (see the module docstring). A name that is no module, or is outside ``layers``, is left out.

    Cost: one parse of each file reached, kept for the process. With ``memo`` (a file the caller names, one per
    question and work tree), the answer is kept on disk between processes too, with the stamps (modification
    time and size) of every file in it and of their folders: it is used while none has changed, so an edited
    file, or a module added or removed beside one, reads the sources again. It names files only; their
    contents are hashed by :func:`digest` every time.
    """
    if memo is not None:
        asked = [sorted(names), list(layers)]     # a package imported under two names shares its files
        kept = _recall(memo, asked)
        if kept is None:
            began = time.time_ns()
            kept = module_files(names, layers)
            _keep(memo, kept, asked, began)
        return kept
    files: dict[str, Path] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in files or not within(name, layers):
            continue
        spec = _spec(name)
        if spec is None or not spec.has_location or not str(spec.origin).endswith(".py"):
            continue
        files[name] = Path(spec.origin)
        wanted, _ = _read(spec.origin, name, spec.submodule_search_locations is not None)
        for base, taken in wanted:
            if not (within(base, layers) or any(layer.startswith(base + ".") for layer in layers)):
                continue                # numpy, numba, the front door ...: never followed, never looked up
            base_spec = _spec(base)
            if base_spec is None:
                continue
            if base_spec.submodule_search_locations is None:
                todo.append(base)       # a module: the names taken are in its file
                continue
            # ``from package import module`` needs the module's file only; any other name, the package's too.
            submodules = [f"{base}.{n}" for n in taken or () if _spec(f"{base}.{n}") is not None]
            todo += submodules
            if within(base, layers) and (taken is None or len(submodules) < len(taken)):
                todo.append(base)
                if base_spec.has_location and _read(base_spec.origin, base, True)[1]:
                    todo += package_modules(base)   # a name found at run time may come from any of its modules
    return files


def memo_file(question: str, anchor: Path) -> Path:
    """Where :func:`module_files` keeps its answer to ``question`` for the work tree of file ``anchor``: beside
    the kernels' cache, under ``$NUMBA_CACHE_DIR`` (which :mod:`switchq.validate` sets on import).

    >>> memo_file("simulator", Path(__file__)).name.startswith("simulator-")
    True
    """
    tree = hashlib.sha256(str(Path(anchor).resolve()).encode()).hexdigest()[:16]
    return Path(os.environ["NUMBA_CACHE_DIR"]) / "sources" / f"{question}-{tree}.files.json"


def _stamps(files: dict[str, Path]) -> dict[str, list[int]]:
    """(modification time in ns, size) of each file and of each folder holding one: a module added to or
    removed from a folder changes the folder's stamp."""
    paths = {*map(str, files.values()), *(str(p.parent) for p in files.values())}
    return {path: [(st := os.stat(path)).st_mtime_ns, st.st_size] for path in sorted(paths)}


def _recall(memo: Path, asked: list) -> dict[str, Path] | None:
    """The files kept in ``memo`` for the same question (``asked``: the names and layers), if none of them nor
    their folders changed since (else None)."""
    try:
        kept = json.loads(memo.read_text())
        files = {name: Path(path) for name, path in kept["files"].items()}
        return files if kept["asked"] == asked and _stamps(files) == kept["stamps"] else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None         # no memo yet, a file gone, or a memo from another version: read the sources


def _keep(memo: Path, files: dict[str, Path], asked: list, began: int) -> None:
    """Write ``files`` with their stamps to ``memo``, whole or not at all (processes may write it at once); not
    when a file or folder changed after the reading ``began`` (ns): its stamp could name a graph not read."""
    stamps = _stamps(files)
    if any(mtime >= began for mtime, _ in stamps.values()):
        return
    text = json.dumps({"asked": asked, "files": {n: str(p) for n, p in files.items()}, "stamps": stamps})
    part = memo.with_name(f"{memo.name}.{os.getpid()}")
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        part.write_text(text)
        os.replace(part, memo)
    except OSError:
        pass                # a read-only cache: the next process reads the sources again


@functools.lru_cache(maxsize=None)
def _file_digest(path: Path) -> bytes:
    # Read once per process: modules compiled later in it reuse what it read first.
    return hashlib.sha256(path.read_bytes()).digest()


def digest(files: dict[str, Path]) -> str:
    """SHA-256 (hex) of the modules' names and contents.

    A process that reads a source changed since it began to import the simulator may be running the file's
    earlier version: its digest then names this process too, so nothing it compiles or stores is ever taken
    for the file's current content (a running ``switchq serve`` while its sources are edited).
    """
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0" + _file_digest(files[name]))
    if any(os.stat(p).st_mtime > _STARTED for p in files.values()):
        h.update(f"changed under process {os.getpid()} started {_STARTED}".encode())
    return h.hexdigest()
