"""The committed reports in ``reports/`` (markdown + PNG) that reproduce the papers, one module each.

``switchq report NAME`` calls :func:`switchq.reports.build_report`, which hands
:func:`build_report` a :class:`Catalog`: the reports the architectures declare
(:mod:`switchq.architectures`), their sweep models and the sweep engine. The
builders sit below those (imports go one way: validation <- front door), so
they are given them, never import them. A report reads its
simulated figures through the sweep engine (:func:`points`): each point is
stored as it finishes and reused when the report is built again with the
same settings, so a long report resumes where it stopped. Each report states
how it was made (command, seed, slots, replications) next to every figure.
"""

from __future__ import annotations

import importlib
import math
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Mapping
from pathlib import Path

from switchq.models import _check

from . import claims

__all__ = ["build_report", "Catalog", "using", "catalog", "points", "est", "Row", "page", "begin", "pyplot",
           "write_record"]


@dataclass(frozen=True)
class Catalog:
    """What the report builders read of the layers above them, handed in by the front door
    (:func:`switchq.reports.catalog`)."""

    reports: Mapping        # report name -> the module that builds it, in listing order
    declarations: Mapping   # architecture name -> its :class:`switchq.declaration.Architecture` (kernel, metrics)
    models: Mapping         # sweep model name -> its :class:`switchq.registry.Model` (parameters, answers, metrics)
    run_points: Callable    # :func:`switchq.sweeps.run_points`: simulated rows through the sweep engine and its store


_catalog: dict = {"catalog": None}


@contextmanager
def using(given: Catalog):
    """Build reports with ``given`` while the block runs (the one before it back after)."""
    before, _catalog["catalog"] = _catalog["catalog"], given
    try:
        yield given
    finally:
        _catalog["catalog"] = before


def catalog() -> Catalog:
    """The catalog the reports are being built with; a clear error outside :func:`using`."""
    if _catalog["catalog"] is None:
        raise RuntimeError("a report is built through switchq.reports.build_report (or inside "
                           "switchq.validate.reports.using(switchq.reports.catalog()))")
    return _catalog["catalog"]


# A precision target every point() of the report being built runs to (build_report's ``target``).
_target = {"target": None}


def build_report(name: str, out: Path, quick: bool = False, workers: int = 0, seed: int = 1,
                 store=None, target: dict | None = None) -> list[Path]:
    """Write report ``name`` (or all of them) into ``out``; return the files written. Inside
    :func:`using` (the front door's :func:`switchq.reports.build_report` is the way in).

    ``store``: the result store its points are kept in and reused from (None: keep nothing). ``target``:
    a precision target (``precision``, ``max_replications``) every simulated point is run to.
    """
    modules = catalog().reports
    _check.choice("name", name, (*modules, "all"))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    _target["target"] = target
    claims.extending(not quick)     # a quick build is a smoke test: no replications added to inconclusive rows
    try:
        for n in (modules if name == "all" else (name,)):
            builder = importlib.import_module(modules[n])
            claims.reporting(n)      # every verdict the builder makes is recorded under its report's name
            first = len(claims.RECORD)
            written += builder.build(out, quick=quick, workers=workers, seed=seed, store=store)
            written.append(write_record(out, n, claims.RECORD[first:], quick=quick, seed=seed))
    finally:
        _target["target"] = None
        claims.extending(True)
    return written


def write_record(out: Path, name: str, verdicts, *, quick: bool, seed: int) -> Path:
    """``NAME.verdicts.json`` beside the report: every verdict its build made, one object each (the claim, its
    section, reading, class, estimate, band and evidence: :meth:`claims.Verdict.record`), and the headline."""
    import json

    verdicts = [v for v in verdicts if v.report == name]
    path = Path(out) / f"{name}.verdicts.json"
    body = {"report": name, "seed": seed, "quick": quick, "headline": claims.by_class(verdicts),
            "verdicts": [v.record() for v in verdicts]}
    path.write_text(json.dumps(body, indent=1, allow_nan=False) + "\n")
    return path


def pyplot():
    """Matplotlib's pyplot, drawing off screen (Agg): imported when a report draws, not when it is named."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def begin(name: str, budget: int) -> float:
    """Start building report ``name``: plots drawn off screen, every verdict recorded under its name with the
    report's replication ``budget`` (a multiple of each figure's base replications the engine may take it to,
    at least :data:`claims.MIN_BUDGET`); returns the start time (for the build time the page states)."""
    import time

    pyplot()
    claims.reporting(name, budget)
    return time.time()


def built(started: float, rows) -> str:
    """The footer's build sentence: this build's seconds and what its distinct simulated ``rows`` took when they
    were run (each row's ``wall_seconds``, the store's record, so a build from the store still says it).

    Examples
    --------
    >>> import time
    >>> built(time.time(), [{"wall_seconds": 2.5}, {"wall_seconds": None}])
    "Built in 0 s; its 2 points took 2 s of simulation as they were run (the store's record)."
    """
    import time

    rows = list(rows)
    took = sum(r.get("wall_seconds") or 0.0 for r in rows)
    return (f"Built in {time.time() - started:.0f} s; its {len(rows)} points took {took:,.0f} s of simulation as they "
            "were run (the store's record).")


def points(model: str, params: list, *, slots: int | None = None, warmup: int | None = None,
           replications: int | None = None, seed: int = 1, workers: int = 0, store=None,
           progress: bool = False) -> list:
    """Simulated rows of ``model`` at ``params`` (a dict each), every one run with ``seed`` itself.

    Rows are as ``switchq sweep --json`` gives them (results, CIs as [low, high]), read as
    :class:`Row` s; :func:`est` reads an estimate back. Each row can be run again on more replications
    (``row.more(n)``: the same point with ``n``, replication r keeping its seed), which the verdict engine
    asks for before it calls an interval inconclusive, and knows what each metric can be (``row.domains``).
    """
    run_points = catalog().run_points
    kw = dict(slots=slots, warmup=warmup, seed=seed, workers=workers, progress=progress)
    target = _target["target"]
    rows = [Row(r) for r in run_points(model, params, simulate=True, store=store, replications=replications,
                                       target=target, **kw)]
    domains = _domains(model)
    for p, r in zip(params, rows):
        r.setdefault("replications", replications)
        r.domains = domains
        r.more = _again(model, p, store, kw)
    return rows


def _again(model, p, store, kw):
    return lambda n: points(model, [p], replications=n, store=store, **kw)[0]


def _domains(model: str) -> dict:
    """What each metric of ``model``'s simulator can be, (low, high) with None where unlimited."""
    d = getattr(catalog().models.get(model), "declaration", None)
    return {m.name: tuple(m.bounds) for m in getattr(d, "metrics", ())}


class Row(dict):
    """A stored point read back, its fields also as attributes: ``row.throughput`` (a value stored as
    none reads as NaN), ``row.throughput_ci95`` (a tuple).

    Examples
    --------
    >>> r = Row({"throughput": 0.5, "throughput_ci95": [0.49, 0.51], "loss_probability": None})
    >>> r.throughput, r.throughput_ci95, math.isnan(r.loss_probability)
    (0.5, (0.49, 0.51), True)
    """

    def __getattr__(self, name):
        try:
            v = self[name]
        except KeyError:
            raise AttributeError(name) from None
        if v is None:
            return math.nan
        if name.endswith("_ci95") and isinstance(v, list) and len(v) == 2 and not isinstance(v[0], list):
            return tuple(math.nan if x is None else x for x in v)
        return v


def est(row: dict, name: str):
    """The estimate ``name`` of a stored row (a value stored as none reads as NaN), with the stability of its
    run and what the metric can be; one the verdict engine can measure again on more replications when the
    row can be run again (:func:`points`).

    Examples
    --------
    >>> e = est({"throughput": 0.5, "throughput_ci95": [0.49, 0.51], "replications": 8}, "throughput")
    >>> e.half_width, e.n, e.stable
    (0.010000000000000009, 8, None)
    >>> math.isnan(est({"loss_probability": None, "loss_probability_ci95": [None, None]}, "loss_probability").value)
    True
    """
    from ..rows import estimate

    e = estimate(row, name, getattr(row, "domains", {}).get(name, (None, None)))
    reps = row.get("replications") or 0
    more = getattr(row, "more", None)
    return claims.measured(e, None if more is None else lambda k: est(more(k), name), runs=int(reps or 0))


def page(out: Path, name: str, title: str, intro: str, verdicts, body: list, started: float, *, quick: bool,
         seed: int) -> Path:
    """Write report ``name``'s markdown: its title, how it was made (the command, seed) and ``intro``, the
    headline (the default reading's verdicts by class), ``body`` and how long the build took; return its path."""
    import time

    from .claims import by_class

    made = f"Generated by `switchq report {name}`" + (" --quick" if quick else "") + f" (seed {seed}). "
    lines = [f"# {title}", "", made + intro, "", f"**Verdicts** (default reading): {by_class(verdicts)}.", ""]
    lines += body + [f"_Built in {time.time() - started:.0f} s._", ""]
    path = Path(out) / f"{name}.md"
    path.write_text("\n".join(lines))
    return path
