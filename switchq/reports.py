"""``switchq report``: the committed reports that reproduce the papers, built with what they read of the front door.

The report builders (:mod:`switchq.validate.reports`) sit below the declarations and the sweep engine,
so this module hands them those (:func:`catalog`): the reports and architectures declared, their sweep
models and :func:`switchq.sweeps.run_points`.

Examples
--------
>>> report_names()[:3]
('hol', 'circuit', 'cioq')
"""

from __future__ import annotations

from pathlib import Path

from . import registry

__all__ = ["build_report", "report_names", "catalog"]


def report_names() -> tuple:
    """The reports, in listing order."""
    return tuple(registry.reports())


def catalog():
    """What the report builders read of the front door (:class:`switchq.validate.reports.Catalog`)."""
    from .sweeps import run_points
    from .validate.reports import Catalog

    return Catalog(reports=registry.reports(), declarations=registry.declarations(), models=registry.MODELS,
                   run_points=run_points)


def build_report(name: str, out: Path, quick: bool = False, workers: int = 0, seed: int = 1, store=None,
                 target: dict | None = None) -> list[Path]:
    """Write report ``name`` (or all of them) into ``out``; return the files written
    (:func:`switchq.validate.reports.build_report`, with this front door's :func:`catalog`)."""
    from .validate import reports

    with reports.using(catalog()):
        return reports.build_report(name, out, quick=quick, workers=workers, seed=seed, store=store,
                                    target=target)
