"""The registry: every declared architecture, found by discovery, and what is derived from them.

Each module of :mod:`switchq.architectures` declares one
:class:`~switchq.declaration.Architecture` as ``DECLARATION``; this module
imports them (they import only model descriptions: no NumPy; ``switchq solve
hol`` imports just the one that declares it, found in :func:`command_index`) and
answers: which declarations there are (:func:`declarations`), which one
simulates a given system (:func:`for_system`), which answers ``switchq
solve``/``size`` offer (:func:`answers`), and the models ``switchq sweep``
knows (:data:`MODELS`): one per answer (with its simulated twin, if any)
and one per simulated architecture that no answer is named after.

A sweep model lists its parameters under the CLI's spellings (``ports``,
``load``, ``window``, ``buffer``, ``rtt_slots``, ...; the ``--vary`` name, the
option of fixed values and the table column) and maps each to the keyword
it feeds (``ports`` -> ``n_ports``).

Examples
--------
>>> from switchq.registry import MODELS
>>> {"hol", "fifo", "size-credit"} <= set(MODELS)
True
>>> oq = get("oq")
>>> [p.name for p in oq.params_for("analytic")]
['ports', 'load', 'buffer']
>>> oq.param("ports").parse("16", "--ports")
16
>>> r = oq.analytic({"ports": 16, "load": 0.8, "buffer": None})
>>> round(r["mean_wait"], 4)
1.875
>>> for_system(switchq.Switch(4, "voq")).name
'voq'
>>> for_system(switchq.models.FatTreeNetwork.for_nodes(16, 8), switchq.models.NamdRound(256)).name
'namd'
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable

import switchq  # noqa: F401  (the examples name switchq.models)

from .declaration import FAMILIES, Answer, Architecture
from .errors import InputError
from .params import MODES, SIM, Param

__all__ = ["declarations", "get_architecture", "for_system", "switch_class", "answers", "command", "entries",
           "command_index", "discovered_index", "Model", "MODELS", "get", "MODES", "suites", "reports"]



def _modules() -> list:
    """``(module name, declaration)`` of every module of ``switchq.architectures`` but the shared pieces."""
    from . import architectures

    found = []
    for info in pkgutil.iter_modules(architectures.__path__):
        if info.name.startswith("_"):
            continue  # shared pieces, not a declaration
        module = importlib.import_module(f"{architectures.__name__}.{info.name}")
        d = getattr(module, "DECLARATION", None)
        if not isinstance(d, Architecture):
            raise TypeError(f"{module.__name__} declares no DECLARATION = Architecture(...)")
        if d.family not in FAMILIES:
            raise TypeError(f"{module.__name__}: family {d.family!r} is not one of {FAMILIES}")
        found.append((info.name, d))
    return found


@lru_cache(maxsize=1)
def declarations() -> dict:
    """Name -> :class:`~switchq.declaration.Architecture`, every module of ``switchq.architectures``, in
    listing order."""
    found = sorted((d for _, d in _modules()), key=lambda d: (d.order, d.name))
    names = [d.name for d in found]
    if len(set(names)) != len(names):
        raise TypeError(f"two declarations share a name: {names}")
    return {d.name: d for d in found}


def command(verb: str, name: str):
    """The entry of ``switchq VERB NAME``: ``(Answer, Architecture)`` for ``solve``/``size``, the
    :class:`~switchq.declaration.Architecture` for ``simulate``; None if there is none. Imports only the
    declaring module, found in :func:`command_index`."""
    module = command_index().get(verb, {}).get(name)
    if module is not None:
        d = importlib.import_module(f"switchq.architectures.{module}").DECLARATION
        found = entries(verb, [d]).get(name)
        if found is not None:
            return found
    return entries(verb).get(name)


def entries(verb: str, found=None) -> dict:
    """Command name -> entry (as :func:`command` gives it) of ``switchq VERB``, over the declarations
    ``found`` (default: all)."""
    found = declarations().values() if found is None else found
    if verb == "simulate":
        return {d.name: d for d in found if d.simulated}
    return {a.command: (a, d) for d in found for a in d.answers if a.verb == verb}


def command_index() -> dict:
    """Verb -> command -> the name of the module of ``switchq.architectures`` that declares it.

    Kept in ``architectures/__pycache__/commands.json`` with the modules' names, sizes and modification
    times, and found again by discovery when they change: ``switchq solve hol`` then imports one
    declaration, not all of them (a third of a warm analytic call's wall time), and adding an
    architecture stays adding a module. Where the file cannot be written, discovery answers every time.
    """
    import json
    import os

    from . import architectures

    folder = Path(architectures.__path__[0])
    key = [[f.name, st.st_mtime_ns, st.st_size] for f in sorted(folder.glob("*.py")) for st in [f.stat()]]
    cache = folder / "__pycache__" / "commands.json"
    try:
        kept = json.loads(cache.read_text())
        if kept["key"] == key:
            return kept["index"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    index = discovered_index()
    try:
        cache.parent.mkdir(exist_ok=True)
        scratch = cache.with_name(f"commands.{os.getpid()}.json")
        scratch.write_text(json.dumps({"key": key, "index": index}))
        os.replace(scratch, cache)    # whole or not at all, whichever process writes last
    except OSError:
        pass
    return index


def discovered_index() -> dict:
    """:func:`command_index` as discovery finds it, importing every declaration."""
    index: dict = {}
    for module, d in _modules():
        for a in d.answers:
            index.setdefault(a.verb, {})[a.command] = module
        if d.simulated:
            index.setdefault("simulate", {})[d.name] = module
    return index


def get_architecture(name: str) -> Architecture:
    """The declaration called ``name``; InputError listing them if there is none."""
    try:
        return declarations()[name]
    except (KeyError, TypeError):
        raise InputError("architecture", name, "one of " + ", ".join(declarations())) from None


def for_system(system, workload=None) -> Architecture:
    """The declaration that simulates ``system`` under ``workload`` (by their types; the first that takes
    the system when ``workload`` is None)."""
    for d in declarations().values():
        if d.simulated and isinstance(system, d.config) and (workload is None or isinstance(workload, d.accepts)):
            return d
    raise InputError("system", type(system).__name__, "a configuration of a simulated architecture with a "
                     "workload it takes: " + ", ".join(f"{c.__name__} + {w.__name__}" for d in declarations().values()
                                                       if d.simulated for c in d.config for w in d.accepts))


def switch_class(architecture: str):
    """``(declaration, configuration class)`` of a single-switch architecture name (``fifo``, ``iq-split``)."""
    for d in declarations().values():
        if d.family == "switch" and architecture in d.architectures:
            return d, d.config[0]
    names = [a for d in declarations().values() if d.family == "switch" for a in d.architectures]
    raise InputError("architecture", architecture, "one of " + ", ".join(names))


def answers(verb: str | None = None) -> dict:
    """Answer name -> ``(Answer, Architecture)``, for one verb (``solve``, ``size``) or all."""
    out = {}
    for d in declarations().values():
        for a in d.answers:
            if verb is None or a.verb == verb:
                out[a.name] = (a, d)
    return out


def suites() -> dict:
    """Suite name -> its validation cases ``[(Case, Architecture)]``, in listing order."""
    out: dict = {}
    for d in declarations().values():
        for case in d.cases:
            out.setdefault(case.suite, []).append((case, d))
    return out


def reports() -> dict:
    """Report name -> the module that builds it, in listing order."""
    return {name: module for d in declarations().values() for name, module in d.report}


# --------------------------------------------------------------------------- sweep models

@dataclass(frozen=True)
class Model:
    """One sweepable model: an answer and its simulated twin, or a simulated architecture alone.

    Attributes
    ----------
    name, title : str
    params : tuple of Param
    analytic : callable or None
        ``analytic(params) -> dict`` of results.
    check : callable or None
        ``check(params)``: cheap validation of an analytic point (raises InputError).
        None: ``analytic`` itself is the check.
    build : callable or None
        ``build(params) -> (system, workload)`` of the simulated twin.
    declaration : Architecture or None
        The twin's declaration (it checks and runs what ``build`` gives).
    main, table, results : dict
        Mode -> the main result (``--plot``'s default y), those shown in tables, every result name.
    note : str
        One line on what the model answers, for ``--help`` and ``--list``.
    result_units : dict
        Unit of each result.
    example : str
        A ``--vary`` example for its help.
    """

    name: str
    title: str
    params: tuple
    analytic: Callable | None = None
    check: Callable | None = None
    build: Callable | None = None
    declaration: Architecture | None = None
    main: dict = field(default_factory=dict)
    table: dict = field(default_factory=dict)
    results: dict = field(default_factory=dict)
    note: str = ""
    result_units: dict = field(default_factory=dict)
    example: str = ""

    @property
    def modes(self) -> tuple:
        return tuple(m for m in MODES if (self.analytic if m == "analytic" else self.build) is not None)

    def param(self, name: str) -> Param:
        """The parameter called ``name`` (dashes read as underscores); InputError if there is none."""
        key = name.strip().replace("-", "_")
        for p in self.params:
            if p.name == key:
                return p
        raise InputError("--vary", name, f"a parameter of {self.name}: " + ", ".join(p.name for p in self.params))

    def params_for(self, mode: str) -> list:
        return [p for p in self.params if mode in p.modes]

    def name_of(self, solver_name: str) -> str | None:
        """The parameter a solver's error names (``n_ports``, ``--link-rate``, ``q_r``), or None."""
        key = solver_name.lstrip("-").replace("-", "_")
        for p in self.params:
            if key in p.names() or solver_name in p.names():
                return p.name
        return None

    def unit_of(self, name: str) -> str:
        for p in self.params:
            if p.name == name:
                return p.unit
        return self.result_units.get(name, "")


def _twin_build(d: Architecture, twin: Callable) -> Callable:
    def build(params):
        return d.build({**d.defaults(), **twin(params)})
    return build


def _analytic(a: Answer) -> Callable:
    def analytic(params):
        return a.evaluate(params)[1]
    return analytic


def _sim_results(d: Architecture) -> tuple:
    names = []
    for m in d.metrics:
        names += [m.name, m.name + "_ci95"]
    return tuple(names) + tuple(c.name for c in d.counters) + (("unstable",) if d.stability else ())


class _Later(Mapping):
    """A dict made at its first read: an answer's figures and units come from its solver's result, whose
    module (and NumPy) listing the models (``sweep --help``) must not import."""

    def __init__(self, make: Callable):
        self._make, self._made = make, None

    def _dict(self) -> dict:
        if self._made is None:
            self._made = self._make()
        return self._made

    def __getitem__(self, key):
        return self._dict()[key]

    def __iter__(self):
        return iter(self._dict())

    def __len__(self):
        return len(self._dict())


def _answer_model(a: Answer, d: Architecture) -> Model:
    twin = d.simulated and a.twin is not None
    sim = (lambda x: {"simulated": x}) if twin else (lambda x: {})
    return Model(
        a.name, a.title, a.params, analytic=_analytic(a), check=a.check,
        build=_twin_build(d, a.twin) if twin else None, declaration=d if twin else None,
        main=_Later(lambda: {"analytic": a.main_result(), **sim(a.sim_main)}),
        table=_Later(lambda: {"analytic": a.table_results(), **sim(a.sim_table)}),
        results=_Later(lambda: {"analytic": a.result_names(), **sim(_sim_results(d))}),
        note=a.summary, result_units=_Later(lambda: {**a.units_of(), **(d.units_of() if twin else {})}),
        example=a.vary_example)


@lru_cache(maxsize=1)
def _models() -> dict:
    out = {}
    for d in declarations().values():
        for a in d.answers:
            out[a.name] = _answer_model(a, d)
        if d.simulated and d.name not in out:
            params = tuple(p if p.modes == SIM else _sim(p) for p in d.all_params())
            out[d.name] = Model(d.name, d.title, params, build=_twin_build(d, lambda p: p), declaration=d,
                                main={"simulated": d.main}, table={"simulated": d.table},
                                results={"simulated": _sim_results(d)}, note=d.summary, result_units=d.units_of(),
                                example=d.vary_example)
    return out


def _sim(p: Param) -> Param:
    """``p`` for a simulated sweep: a default that stands for several values (``both``) becomes the first."""
    from dataclasses import replace

    groups = dict(p.expand)
    return replace(p, modes=SIM, default=groups[p.default][0] if p.default in groups else p.default)


def __getattr__(name):
    # The sweep models are built on first use: building them imports every declaration.
    if name == "MODELS":
        return _models()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get(name: str) -> Model:
    """The sweep model called ``name``; InputError listing the models if there is none.

    Examples
    --------
    >>> get("hol").modes
    ('analytic', 'simulated')
    >>> get("fifo").modes
    ('simulated',)
    >>> get("mesh")
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: MODEL: got 'mesh'; allowed: one of ...
    """
    try:
        return _models()[name]
    except (KeyError, TypeError):
        raise InputError("MODEL", name, "one of " + ", ".join(_models())) from None
