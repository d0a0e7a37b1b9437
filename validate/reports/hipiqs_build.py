"""How the ``hipiqs`` report (paper 000's Figs. 7-12) runs its points: the load grids, run lengths and
replications, the tolerances read into the paper's words, and :class:`Build`, one build's state.

Its own module so that :mod:`switchq.validate.reports.hipiqs` and its figure modules
(:mod:`~switchq.validate.reports.hipiqs_fig12`) read it without importing each other.
"""

from __future__ import annotations

import sys

from . import points
from .hipiqs_claims import Claims, deadlocked

__all__ = ["AROUND", "BUDGET", "BUFFERS", "CYCLES", "FINE", "KNEE", "LOADS", "QUICK_CYCLES", "QUICK_FINE",
           "QUICK_LOADS", "REPLICATIONS", "SIZES", "STABLE", "Build"]

LOADS, QUICK_LOADS = (0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98), (0.4, 0.6, 0.8, 0.9, 0.98)
FINE, QUICK_FINE = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98), (0.6, 0.8, 0.9, 0.98)
SIZES = (64, 128, 256)
BUFFERS = (320, 640, 1280)
REPLICATIONS = 5                     # the fewest a verdict may stand on (claims.MIN_SAMPLES), quick or full
BUDGET = 4                           # the engine's minimum: 4x the replications halve an interval's half-width
CYCLES, QUICK_CYCLES = 150_000, 6_000
AROUND = 0.05        # "about", "around", "almost identical", "considerably": a grid step of the paper's figures
STABLE = 0.01        # "does not saturate": the carried share within the backlog rule's 1 % of 1
KNEE = 10            # a latency knee: mean latency past this many times the zero-load latency


class Build:
    """One build: how every point is run, the points run (and the deadlocked ones), the HIPIQS readings and
    the verdicts."""

    def __init__(self, quick: bool, workers: int, seed: int, store):
        from switchq.models.flit import FlitSwitch

        self.quick, self.seed = quick, seed
        self.cycles, self.reps = (QUICK_CYCLES if quick else CYCLES), REPLICATIONS
        self.loads, self.fine = (QUICK_LOADS, QUICK_FINE) if quick else (LOADS, FINE)
        # A quarter of the measured cycles (the paper: 350,000 of 10^6): a half left the latency trend unjudged (the
        # time since the start must grow 3x across the measured segments), so no run could be shown stable.
        self.warmup = self.cycles // 4
        self.run = dict(slots=self.cycles, warmup=self.warmup, replications=self.reps, seed=seed, workers=workers,
                        store=store, progress=sys.stderr.isatty())
        self.deadlocked, self.ran = [], {}     # the deadlocked points; figure -> the HIPIQS readings it ran under
        self.simulated = {}                    # point -> its row, once (the footer counts what the points took)
        self.default = d = FlitSwitch()
        self.readings = [(up, xs) for up in ("input", "output") for xs in ("extra", "within")]
        self.name = {r: f"up port by {r[0]} queue, FIFO units {'on top of' if r[1] == 'extra' else 'within'} the "
                        "buffer" for r in self.readings}
        self.r0 = (d.up_select, d.crosspoint_storage)
        self.ups = [r for r in self.readings if r[1] == d.crosspoint_storage]
        self.claims = Claims(self.r0, self.name, {"up": d.up_select, "storage": d.crosspoint_storage, "wiring": "bmin",
                                                  "fifo routing": d.fifo_routing, "saturation": "received load"})

    def curve(self, grid=None, **p):
        rows = points("bmin", [{**p, "load": x} for x in (grid or self.loads)], **self.run)
        for r in rows:                 # what the rows were run with (est and paired read it)
            r.setdefault("replications", self.reps)
            self.simulated[repr(sorted(p.items())), r["load"]] = r
            if deadlocked(r):
                self.deadlocked.append(", ".join(f"{k} {v}" for k, v in p.items()) + f", load {r['load']:g}")
        return rows

    def hip(self, m, b, reading, nodes=16, traffic="uniform", grid=None, **p):
        return self.curve(grid, nodes=nodes, buffer_org="hipiqs", message_flits=m, buffer_flits=b, traffic=traffic,
                          up_select=reading[0], crosspoint_storage=reading[1], **p)
