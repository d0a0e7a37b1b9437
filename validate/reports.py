"""Build the committed reports in ``reports/`` (markdown + PNG) that reproduce the papers.

``switchq report NAME`` calls :func:`build_report`. Each report states how it
was made (command, seed, slots, replications) next to every simulated figure.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from switchq.models import _check

__all__ = ["build_report", "REPORTS"]

REPORTS = ("hol", "sfc", "multicast")


def build_report(name: str, out: Path, quick: bool = False, workers: int = 0, seed: int = 1) -> list[Path]:
    """Write report ``name`` (or all of them) into ``out``; return the files written."""
    _check.choice("name", name, REPORTS + ("all",))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for n in (REPORTS if name == "all" else (name,)):
        builder = importlib.import_module(f"switchq.validate.report_{n}")
        written += builder.build(out, quick=quick, workers=workers, seed=seed)
    return written
