"""Analytic vs simulated, row by row, with a verdict.

A row *agrees* when the analytic value lies inside the simulation's 95 %
interval widened by the row's ``tolerance``. The tolerance is zero for exact
models (then agreement is purely statistical: about 1 row in 20 may disagree
by chance) and states the known error of an approximate model otherwise
(for example a large-N formula checked at finite N); each suite says why.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

__all__ = ["Comparison", "compare"]


@dataclass(frozen=True)
class Comparison:
    suite: str
    case: str
    quantity: str
    unit: str
    analytic: float
    simulated: float
    ci95: tuple
    tolerance: float
    verdict: str
    analytic_method: str
    seed: int
    slots: int
    replications: int

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ci95"] = list(self.ci95)
        return d


def verdict(analytic: float, low: float, high: float, tolerance: float = 0.0) -> str:
    """'agree' if ``analytic`` is in [low - tolerance, high + tolerance], else 'DISAGREE'."""
    if any(math.isnan(x) for x in (analytic, low, high)):
        return "no interval"
    return "agree" if low - tolerance <= analytic <= high + tolerance else "DISAGREE"


def compare(suite, case, quantity, unit, analytic, analytic_method, sim, tolerance=0.0) -> Comparison:
    """Build a row from an analytic value and a :class:`SimResult`."""
    value = getattr(sim, quantity)
    low, high = getattr(sim, quantity + "_ci95")
    return Comparison(suite, case, quantity, unit, float(analytic), float(value), (low, high),
                      tolerance, verdict(analytic, low, high, tolerance), analytic_method,
                      sim.settings.seed, sim.settings.slots, sim.settings.replications)
