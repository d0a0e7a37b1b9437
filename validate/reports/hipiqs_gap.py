"""Paper 000's one-signed gap for the ``hipiqs`` report: every saturation figure switchq misses, it misses
high (its BMINs carry more than the paper's). Two choices of the kernel are optimistic where the paper is
silent: a sender knows the next switch's buffers at once (no credit return trip), and the adaptive choice of
the next switch's queue reads that switch's queue lengths in the same cycle. Each is run here as a reading
(``credit_delay``, ``routing_age``: :mod:`switchq.validate.arch.flit.cut_through_view`) at every such point,
paired with the default run (the same seed and replications: common random numbers), and the table gives how
much of the gap to the paper's figure each closes.

The points are those whose saturation the figures judge, each run at the grid's top load (the overloaded run,
the same row as the figures' curves there): FIFO at 16 nodes (Fig. 7, "well before 0.60"), HIPIQS at 64 nodes
(Fig. 10, "0.8-0.9": the gap to 0.9) and Fig. 12's 64-node rows (the gap to the figure read off the paper). A
figure's saturation throughput is its curve's highest received load, which past saturation may lie above the
top load's: the gap here is the top-load row's.
"""

from __future__ import annotations

import math

from .claims import paired
from .hipiqs_build import SIZES
from .hipiqs_claims import level
from .hipiqs_fig12 import PAPER

__all__ = ["CREDIT_DELAYS", "ROUTING_AGES", "one_signed_gap"]

# Credit return trips of 2 cycles (a 1-cycle link each way), 8 and 32 (a long cable, or a slow credit path);
# routing information 8 and 32 cycles old. At 32 a central switch's 16-flit input FIFO is below its credit loop.
CREDIT_DELAYS = (2, 8, 32)
ROUTING_AGES = (8, 32)


def _points(s):
    """(label, parameters, the paper's figure) of every default point whose saturation the figures judge."""
    hip = dict(buffer_org="hipiqs", up_select=s.r0[0], crosspoint_storage=s.r0[1])
    out = [(f"FIFO, 16 nodes, uniform, {m}-flit", dict(nodes=16, buffer_org="fifo", message_flits=m), 0.60)
           for m in SIZES]
    out += [(f"HIPIQS, 64 nodes, uniform, {m}-flit", dict(nodes=64, message_flits=m, **hip), 0.90)
            for m in (64, 128)]
    for pattern in ("bitrev", "transpose"):
        for org in ("hipiqs", "central"):
            for m in (64, 128):
                p = dict(nodes=64, message_flits=m, traffic=pattern, **(hip if org == "hipiqs" else
                                                                         dict(buffer_org="central")))
                out.append((f"{'HIPIQS' if org == 'hipiqs' else 'central'}, 64 nodes, {pattern}, {m}-flit", p,
                            PAPER[org, pattern, m]))
    return out


def one_signed_gap(s) -> list:
    """The section's lines: per point, the default's received load at the top load, the paper's figure, and
    each reading's paired change with the share of the gap it closes."""
    top = max(s.fine)
    # A quick build (a smoke test, run by the test suite) runs the longest delay and age only.
    delays, ages = (CREDIT_DELAYS[-1:], ROUTING_AGES[-1:]) if s.quick else (CREDIT_DELAYS, ROUTING_AGES)
    readings = ([(f"credit return {d} cycles", {"credit_delay": d}) for d in delays]
                + [(f"routing information {a} cycles old", {"routing_age": a}) for a in ages])
    lines = ["## The one-signed gap: credit return and the age of routing information", "",
             "The kernel is optimistic in two places where the paper says nothing: a sender knows the next "
             "switch's free buffer space at once "
             "(credits with no return trip), and the adaptive up-port choice reads the next switch's queue lengths "
             "in the same cycle. Each is run as a reading at every point the figures judge saturation on (the "
             f"overloaded run at {top:g}: the curves' row there), paired with the default run (same seed and "
             "replications). A cell is "
             "the reading minus the default (95 % CI, paired) and, in brackets, the share of the gap to the "
             "paper's figure it closes. The aged routing information applies only where a route chooses its "
             "queue (HIPIQS); the text allows both readings and decides neither, so the defaults stay the most "
             "literal (nothing delayed that the paper does not delay). The gap is the top-load row's: a "
             "figure's saturation throughput, its curve's highest received load, may lie above it past "
             "saturation.", "",
             "| point | paper | default at " + f"{top:g} | " + " | ".join(r for r, _ in readings) + " |",
             "|---|---:|---|" + "---|" * len(readings)]
    closed = []            # (share of the gap, reading, point)
    for label, p, paper in _points(s):
        grid = (top,)
        base = s.curve(grid, buffer_flits=640, **p)[0]
        gap = base["throughput"] - paper
        cells = []
        for name, extra in readings:
            if "routing_age" in extra and p["buffer_org"] != "hipiqs":
                cells.append("—")
                continue
            d = paired(s.curve(grid, buffer_flits=640, **p, **extra)[0], base, "throughput")
            share = -d.value / gap if gap > 0 else float("nan")
            closed.append((share, name, label))
            closes = f"{100 * share:+.0f} %" if math.isfinite(share) else "no gap"
            cells.append(f"{d.value:+.3f} ({d.low:+.3f} .. {d.high:+.3f}) [{closes}]")
        lines.append(f"| {label} | {paper:g} | {level(base)} | " + " | ".join(cells) + " |")
    lines += ["", "Share of the gap closed, by reading (median over the points it applies to, and its range; "
              "negative: the gap widens, past 100 %: the reading takes the network below the paper's figure): "
              + "; ".join(_spread(name, [x for x, n, _ in closed if n == name]) for name, _ in readings) + ".", ""]
    return lines


def _spread(name: str, shares: list) -> str:
    """``name``: the median and range of ``shares``, as a sentence part.

    >>> _spread("credit return 2 cycles", [0.1, -0.05, 0.02])
    'credit return 2 cycles 2 % (-5 % .. 10 %)'
    """
    ranked = sorted(x for x in shares if math.isfinite(x))
    if not ranked:
        return f"{name} not run"
    mid = len(ranked) // 2
    median = ranked[mid] if len(ranked) % 2 else (ranked[mid - 1] + ranked[mid]) / 2
    return f"{name} {100 * median:.0f} % ({100 * ranked[0]:.0f} % .. {100 * ranked[-1]:.0f} %)"
