"""What the sections of the sfc report share: run lengths, the paper's switch points, formatting.

See :mod:`switchq.validate.reports.sfc` for what the report reproduces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from switchq.models.flow_control import RESENDS

from .. import est, points
from ..claims import cell, fmt

__all__ = ["Plan", "Section", "RTTS", "READINGS", "DEFAULT_READING", "DELAY_PRECISION", "THROUGHPUT_PRECISION",
           "REPLICATIONS", "BUDGET", "RULE", "q_r", "switch", "figure", "judged", "ratio", "save"]

RTTS = (8, 16, 32, 64)
# The two readings of when a sent SFC cell goes again (models.flow_control); the first is the default: R7 (§3.1)
# as written, the rule that governs the protocol, not the reading that agrees with more claims.
READINGS = RESENDS
DEFAULT_READING = RESENDS[0]
# Paper 002 §5: "a precision of 0.4 % on the throughput and 5 % on the delay"; a smaller difference in
# delay is not observable in its figures.
DELAY_PRECISION = 0.05
THROUGHPUT_PRECISION = 0.004
# Replications behind every simulated point a verdict stands on (claims.MIN_SAMPLES or more).
REPLICATIONS = 5
# Replications the engine may take a figure to before calling it inconclusive, as a multiple of its own: the
# minimum; every point here is cheap enough to run again.
BUDGET = 4
RULE = ("No verdict stands on fewer than 5 replications or on point values; comparisons are paired: both "
        "configurations run with the same seeds (replication r of each draws its traffic from the same stream), "
        "judged on the interval of their per-replication ratio or difference. A figure agrees when its whole "
        "interval lies inside the claim's band (or on the claim's side of a bound) from a run shown stable; a "
        "saturation throughput (load 1, overloaded by design) is judged whatever its run's stability. An interval "
        f"that reaches past the band's edge is run again on more replications, up to {BUDGET} times its own, and is "
        "inconclusive if it still does. A disagreement is classed by the verdict engine from evidence alone: an "
        "ambiguity where another reading that was run is judged agree and the paper's sentence allowing both is "
        "quoted, not reproducible where a tested function over a rule the paper states contradicts the claim, a "
        "defect otherwise. Each table prints the interval its verdict was judged on (after replications were "
        "added).")


@dataclass(frozen=True)
class Plan:
    """Run lengths of one build (quick for tests, full for the committed report) and how to run them."""

    quick: bool
    seed: int
    workers: int
    store: object
    progress: bool

    def slots(self, full: int, floor: int = 1000) -> int:
        """Slots of a run ``full`` slots long in the full build: a tenth of it when quick, at least ``floor``."""
        return max(floor, int(full * (0.1 if self.quick else 1.0)))

    def run(self, params: list, slots: int, reps: int = REPLICATIONS, warmup: int | None = None,
            seed: int | None = None, floor: int = 1000) -> list:
        """Rows of ``cicq`` at ``params``: ``slots`` (scaled when quick, at least ``floor``) measured slots each,
        every one run with the plan's seed (or ``seed``), so that any two are paired."""
        rows = points("cicq", params, slots=self.slots(slots, floor),
                      warmup=None if warmup is None else self.slots(warmup, floor),
                      replications=reps, seed=self.seed if seed is None else seed, workers=self.workers,
                      store=self.store, progress=self.progress)
        for r in rows:       # what est() and paired() count: the replications each row was run with
            r.setdefault("replications", reps)
        return rows


@dataclass
class Section:
    """Markdown lines of one section, the files it wrote and its verdicts (the headline counts them)."""

    lines: list = field(default_factory=list)
    files: list = field(default_factory=list)
    verdicts: list = field(default_factory=list)


def q_r(n: int, tau: int) -> int:
    """The paper's crosspoint size, floor(tau / N) + 2 (§5)."""
    return tau // n + 2


def switch(n: int, tau: int, protocol: str = "credit", resend: str | None = None, **extra) -> dict:
    """The ``cicq`` point of an N-port crossbar with the paper's crosspoint size (SFC: ``resend`` reading)."""
    return {"ports": n, "rtt_slots": tau, "crosspoint_cells": q_r(n, tau), "protocol": protocol,
            "resend": (resend or DEFAULT_READING) if protocol == "sfc" else None, **extra}


def figure(row, name: str = "mean_latency", digits: int = 1) -> str:
    """A row's estimate as a table prints it (:func:`~switchq.validate.reports.claims.fmt`), or ``unstable``
    with its backlog growth (a queue that grows has no mean latency)."""
    if row.get("unstable"):
        return f"unstable (backlog +{row.get('backlog_growth', math.nan):.0f})"
    e = est(row, name)
    return fmt(e, digits) if math.isfinite(e.value) else "—"


def judged(v, digits: int = 3, signed: bool = False) -> str:
    """A verdict for a table: the interval it was judged on, with its replications where the engine added some,
    and its class, with why unless it agrees."""
    added = f" (n = {v.n})" if v.n > v.base_n else ""
    return f"{fmt(v, digits, signed)}{added}: {cell(v)}"


def ratio(a_row, b_row, name: str = "mean_latency"):
    """The ratio a / b of metric ``name`` of two rows run with the same seeds, replication by replication,
    with the Student-t interval of those ratios (:func:`~switchq.validate.reports.claims.paired`)."""
    from ..claims import paired

    return paired(a_row, b_row, name, ratio=True)


def save(fig, path, title: str) -> None:
    import matplotlib.pyplot as plt

    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
