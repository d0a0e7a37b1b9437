"""Report ``circuit``: paper 001 (Ma & Steenkiste, circuit-switched HIPPI LANs), Figures 1-20 from their prose.

Every number the paper's text gives is set beside ours with a verdict of the
claims engine (:mod:`switchq.validate.reports.claims`): a printed number agrees
when our 95 % interval reaches it within half a unit of its last digit; a
bound ("over 90 %") when our interval reaches its side; a claim comparing two
configurations (an order, a gain, "almost identical") is judged on the
interval of their paired difference (or ratio): every point runs with the
same seed and :data:`REPLICATIONS` replications, so replication r of each drew
from the same streams. Simulated points are read through the sweep engine
and its store (:func:`switchq.validate.reports.points`).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from switchq.validate.result import Estimate

from .claims import (AGREE, agreeing, at_least, at_most, by_class, derived, listed, paired, printed, sampled, shown,
                     tally, within)
from . import begin, est, points, pyplot
from .circuit_clock import fig_1, fig_18, one_byte
from .circuit_overhead import NOT_DEFAULT, READ, SIZES, figs_10_11, reading_name, reproducing, solver_point

SAME = 0.03          # "almost identical", "little impact", "very similar": within this (throughput points)
REPLICATIONS = 5     # every point's, quick or full: the fewest a verdict may stand on (claims.MIN_SAMPLES)
IDEAL = {"ideal": True}
TRUNCATED = "whole percentages cut after the point (56 % = 0.56 .. 0.57)"


def _gap(a, b, digits: int = 3) -> float:
    """The largest gap between two curves, point by point, between printed values."""
    return max(abs(shown(x, digits) - shown(y, digits)) for x, y in zip(a, b))


def _capped(ns, es, bound: float) -> str:
    """Which sizes' intervals stay below ``bound`` (and how far short), read from the same estimates the
    table prints, so the sentence cannot contradict it."""
    pct = f"{100 * bound:.0f} %"
    below = [(n, e) for n, e in zip(ns, es) if e.high < bound]
    rest = [f"N = {n} at {e.value:.3f}" for n, e in zip(ns, es) if e.high >= bound]
    if not below:
        return f"still lets every size's 95 % interval reach {pct}: {listed(rest)}"
    short = listed(f"N = {n} ({e.value:.3f}, {bound - e.value:.3f} short)" for n, e in below)
    return (f"keeps {short} below {pct}, whole 95 % interval{'s' if len(below) > 1 else ''} included"
            + (f"; the others' intervals reach it: {listed(rest)}" if rest else ""))


@dataclass(frozen=True)
class _Pt(Estimate):
    """A point's throughput estimate and the row it came from (what a paired comparison reads)."""

    row: dict = field(default=None, repr=False, compare=False)


class _Run:
    """The report's simulated points: one budget, one seed, one store."""

    def __init__(self, quick, workers, seed, store):
        self.seconds, self.reps = (0.05 if quick else 1.0), REPLICATIONS
        self.kw = dict(replications=self.reps, seed=seed, workers=workers, store=store,
                       progress=sys.stderr.isatty())

    def rows(self, params: list, seconds: float | None = None) -> list:
        s = seconds or self.seconds
        rows = points("circuit", [{**p, "seconds": s} for p in params], **self.kw)
        for r in rows:                 # what the rows were run with (est and paired read it)
            r.setdefault("replications", self.reps)
        return rows

    def __call__(self, params: list, seconds: float | None = None) -> list:
        out = []
        for r in self.rows(params, seconds):
            e = est(r, "throughput")
            out.append(_Pt(e.value, e.low, e.high, e.n, e.method, row=r))
        return out

    def how(self, seconds=None) -> str:
        return (f"{seconds or self.seconds} s of simulated time after {0.1 * (seconds or self.seconds):g} s of "
                f"warm-up, {self.reps} replications, seed {self.kw['seed']}")


def _fmt(e) -> str:
    return f"{e.value:.3f} ± {e.half_width:.3f}"


def _d(e, digits: int = 3) -> str:
    """A paired difference (or ratio) with its interval."""
    return f"{e.value:+.{digits}f} (95 % CI {e.low:+.{digits}f} .. {e.high:+.{digits}f}, paired)"


def _pd(a, b, ratio: bool = False):
    """The paired difference (ratio) of two points' throughputs."""
    return paired(a.row, b.row, "throughput", ratio=ratio)


class _Claims(list):
    """The verdicts: (figure, the paper says, ours, tolerance, verdict), in order."""

    def add(self, fig, says, ours, tol, judge, value, *args, reading="default", **kw):
        v = judge(value, *args, claim=f"Fig. {fig}: {says}", reading=reading, **kw)
        self.append((fig, says, ours, tol, v))
        return v

    def order(self, fig, says, pairs, **kw):
        """An order (``pairs``: (label, larger, smaller) points): each pair's paired difference at least 0."""
        return [self.add(fig, f"{says} ({label})", _d(_pd(a, b)), "paired difference ≥ 0", at_least, _pd(a, b),
                         0.0, compares=True, **kw) for label, a, b in pairs]


def _plot(out, name, series, xlabel, title, xlog=False):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, xs, es in series:
        ax.errorbar(xs, [e.value for e in es], yerr=[e.half_width for e in es], fmt="o-", ms=3, capsize=2,
                    label=label)
    if xlog:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("saturation throughput")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(out / name, dpi=100)
    plt.close(fig)
    return out / name


def _two_readings(rows) -> list:
    """The figures judged under more than one reading, in the order they come."""
    out = []
    for f, *_, v in rows:
        if v.reading != "default" and f not in out and not f.startswith("("):     # "(ours)": no paper claim
            out.append(f)
    return out


def _claims_table(rows) -> list:
    lines = ["| figure | the paper says | reading | ours | tolerance | verdict | class |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {f} | {say} | {v.reading} | {ours} | {tol} | {v} | "
              + ("" if v == AGREE else f"{v.kind}: {v.evidence}" if v.evidence else v.kind) + " |"
              for f, say, ours, tol, v in rows]
    return lines


def build(out: Path, quick: bool = False, workers: int = 0, seed: int = 1, store=None) -> list[Path]:
    started = begin("circuit")
    sim = _Run(quick, workers, seed, store)
    written, claims = [], _Claims()
    add = claims.add
    lines = ["# Circuit-switched LANs (paper 001): HIPPI with set-up overheads and variable packet sizes", "",
             f"Generated by `switchq report circuit{' --quick' if quick else ''}` (seed {seed}). Each point is "
             f"`switchq simulate circuit` with {sim.how()}; figures are means with 95 % Student-t half-widths. "
             "Saturated adapters, destinations uniform over the other nodes, 800 Mbit/s links, distributed "
             "control pays 2 us to select a packet and 5 us per set-up attempt (held output from the request: "
             "`--claim request`), round robin resumes after the packet sent (`--pointer next`), each adapter "
             "scans its logical channels in an order of its own, and time is the paper's 1 us clock (a "
             "microsecond's events in random order: `--resolution 1us`), unless a section says otherwise.", "",
             "**The rule:** no verdict stands on fewer than 5 replications or on point values; comparisons are "
             "paired. A printed number agrees when our 95 % interval reaches it within half a unit of its last "
             "digit; a bound when our interval reaches its side; a claim comparing two configurations (an order, "
             "a gain, \"almost identical\") is judged by the 95 % interval of the per-replication differences "
             "(or ratios) of their runs, made with the same seed (common random numbers). An order over several "
             "points is judged pair by neighbouring pair; a \"for all\" claim point by point. A disagreement is "
             "classed: a defect (ours is wrong), an ambiguity (the paper reads two ways; the evidence names the "
             "reading that agrees, if any), not reproducible (the evidence computes why), or not a claim about "
             "this model.", ""]

    # ------------------------------------------------------------------ the clock, Fig. 1
    one_byte(sim, claims, lines)
    written.append(fig_1(sim, claims, lines, out))

    # ------------------------------------------------------------------ Figs. 2-4: uniform sizes
    from switchq.solvers import circuit as solver
    from switchq.models.circuit import CircuitTraffic

    spans = ((16000, 16000), (12000, 20000), (8000, 24000), (0, 32000))
    uni = sim([{"ports": 32, **IDEAL, "sizes": "uniform", "size_min": lo * 8, "size_max": hi * 8}
               for lo, hi in spans])
    limits = [solver.fifo_limit(solver.size_moments(CircuitTraffic("uniform", size_min=lo, size_max=hi))[1]
                                / ((lo + hi) / 2) ** 2 - 1) for lo, hi in spans]
    w_uni = sim([{"ports": 32, **IDEAL, "scheduling": "window", "window": 32, "sizes": s, "size_min": 0,
                  "size_max": 32000 * 8, "size": 16000 * 8} for s in ("uniform", "fixed")])
    lines += ["## Figs. 2-4: uniform sizes, ideal switch, N = 32", "",
              "| sizes (bytes) | FIFO simulated | N -> infinity limit 1/(1 + sqrt((1 + C^2)/2)) |",
              "|---|---:|---:|"]
    lines += [f"| [{lo}, {hi}] | {_fmt(e)} | {a:.4f} |" for (lo, hi), e, a in zip(spans, uni, limits)]
    claims.order("2", "FIFO throughput falls as u - l grows", [
        (f"[{a[0]}, {a[1]}] above [{b[0]}, {b[1]}]", uni[k], uni[k + 1])
        for k, (a, b) in enumerate(zip(spans, spans[1:]))])
    gap = _pd(w_uni[0], w_uni[1])
    add("3-4", "large windows: uniform [0, 32000] vs fixed, difference negligible",
        f"W = 32: {_fmt(w_uni[0])} vs {_fmt(w_uni[1])}; uniform minus fixed {_d(gap)}", f"±{SAME}", within, gap,
        0.0, SAME, compares=True)

    # ------------------------------------------------------------------ Figs. 5-7: bimodal sizes
    binl = (1.0, 0.98, 0.9, 0.75, 0.5, 0.25, 0.1)
    bim = lambda n, long, w=1, f=binl, extra=IDEAL: sim([{"ports": n, **extra, "sizes": "bimodal",  # noqa: E731
                                                          "long": long * 8, "long_bytes": x,
                                                          "scheduling": "window" if w > 1 else "fifo",
                                                          "window": w} for x in f])
    fig5 = {n: bim(n, 16000) for n in (4, 16, 64)}
    fig6 = bim(32, 64000)
    fig7 = bim(32, 32000, 32)
    written.append(_plot(out, "circuit_bimodal.png",
                         [(f"FIFO N = {n}, L = 16000", binl, fig5[n]) for n in fig5]
                         + [("FIFO N = 32, L = 64000", binl, fig6), ("W = 32 N = 32, L = 32000", binl, fig7)],
                         "share of bytes in long packets (BinL)", "Figs. 5-7: ideal switch, bimodal sizes"))
    lines += ["", "## Figs. 5-7: bimodal sizes (short 100 B), ideal switch", "",
              "| BinL | FIFO N=4 L=16000 | FIFO N=16 | FIFO N=64 | FIFO N=32 L=64000 | W=32 N=32 L=32000 |",
              "|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {x} | {_fmt(fig5[4][k])} | {_fmt(fig5[16][k])} | {_fmt(fig5[64][k])} | {_fmt(fig6[k])} | "
              f"{_fmt(fig7[k])} |" for k, x in enumerate(binl)]
    i = {x: k for k, x in enumerate(binl)}
    m1, m2 = solver.size_moments(CircuitTraffic("bimodal", long=16000, long_bytes=0.9))
    c2 = m2 / m1 ** 2 - 1
    limit = solver.fifo_limit(c2)
    for x, text in ((1.0, "0.60"), (0.9, "0.22")):
        t, tol = printed(text)
        kw = {}
        if limit > t + tol:
            kw = dict(otherwise="not reproducible",
                      evidence=f"FIFO's throughput falls with N to its N -> infinity limit 1/(1 + sqrt((1 + C²)/2)), "
                               f"{limit:.3f} for these sizes (C² = {c2:.2f}; ours at N = 64: "
                               f"{fig5[64][i[x]].value:.3f}), above {text}")
        add("5", f"N = 16: {text} at BinL {x:g}", _fmt(fig5[16][i[x]]), f"±{tol}", within, fig5[16][i[x]], t, tol,
            **kw)
    near = min(binl, key=lambda x: abs(fig5[16][i[x]].value - 0.22))
    claims.order("5", "large N (64): minimum with bytes about equally split", [
        (f"BinL {x:g} above BinL 0.5", fig5[64][i[x]], fig5[64][i[0.5]]) for x in (0.9, 0.1)])
    add("6", "64000-byte long packets: worse than 15 % (BinL 0.5)", _fmt(fig6[i[0.5]]), "bound", at_most,
        fig6[i[0.5]], 0.15)
    # §5.2 prints these as whole percentages ("to 56% with 50%"): rounded (the default, half a point either side)
    # or cut after the point (56 % = 0.56 .. 0.57, a reading judged first so a default disagreement can name it).
    for x, text in ((1.0, "0.97"), (0.75, "0.59"), (0.5, "0.56")):
        t, tol = printed(text)
        says, e = f"W = 32: {text} at BinL {x:g}", fig7[i[x]]
        cut = add("7", says, _fmt(e), f"[{t:g}, {t + 2 * tol:g}]", within, e, t + tol, tol, reading=TRUNCATED,
                  otherwise="ambiguity", evidence=NOT_DEFAULT)
        add("7", says, _fmt(e), f"±{tol}", within, e, t, tol,
            **(dict(otherwise="ambiguity", evidence=f"agrees under {TRUNCATED}") if cut == AGREE else {}))
    lines += ["", "![bimodal](circuit_bimodal.png)", "",
              f"The paper's 0.22 for N = 16 at 90 % BinL is where our N = 16 curve is at BinL {near} "
              f"({fig5[16][i[near]].value:.3f}); at 90 % we get {fig5[16][i[0.9]].value:.3f}, and FIFO's N -> "
              f"infinity limit for these sizes is {limit:.3f} (C² = {c2:.2f}); our N = 16 interval "
              f"({fig5[16][i[0.9]].low:.3f} .. {fig5[16][i[0.9]].high:.3f}) lies "
              + ("above it" if fig5[16][i[0.9]].low > limit else "not above it") + ".", ""]

    # ------------------------------------------------------------------ Figs. 8-9: long and short sizes
    longs = (4000, 16000, 64000)
    fig8 = {w: sim([{"ports": 32, **IDEAL, "sizes": "bimodal", "long": g * 8, "long_bytes": 0.9,
                     "scheduling": "window" if w > 1 else "fifo", "window": w} for g in longs]) for w in (1, 32)}
    fig9 = {sh: sim([{"ports": 32, **IDEAL, "sizes": "bimodal", "short": sh * 8, "long": g * 8, "long_bytes": 0.9}
                     for g in longs]) for sh in (100, 200)}
    lines += ["## Figs. 8-9: the size of long (and short) packets, ideal switch, N = 32, BinL 0.9", "",
              "| long (B) | FIFO | W = 32 | FIFO, short 200 B |", "|---:|---:|---:|---:|"]
    lines += [f"| {g} | {_fmt(fig8[1][k])} | {_fmt(fig8[32][k])} | {_fmt(fig9[200][k])} |"
              for k, g in enumerate(longs)]
    claims.order("8", "smaller long packets share the network better", [
        (f"{'FIFO' if w == 1 else 'W = 32'}: {longs[k]} B above {longs[k + 1]} B", fig8[w][k], fig8[w][k + 1])
        for w in (1, 32) for k in range(2)])
    kept = {w: derived([fig8[w][-1].row, fig8[w][0].row], "throughput", lambda a, b: a / b, "kept") for w in (1, 32)}
    d = paired(kept[32], kept[1], "kept")
    add("8", "with a large window the long size matters less (share kept from 4000 to 64000 B)",
        f"kept: FIFO {fig8[1][-1].value / fig8[1][0].value:.2f}, W = 32 {fig8[32][-1].value / fig8[32][0].value:.2f}"
        f"; W = 32 minus FIFO {_d(d)}", "paired difference ≥ 0", at_least, d, 0.0, compares=True)
    claims.order("9", "200-byte short packets do slightly better than 100-byte ones", [
        (f"long {g} B", fig9[200][k], fig9[100][k]) for k, g in enumerate(longs)])
    lines.append("")

    over, fixed_approx = figs_10_11(sim, claims, lines)
    sizes = SIZES

    # ------------------------------------------------------------------ Figs. 12-15: overhead, bimodal
    fb = (0.98, 0.9, 0.75, 0.5, 0.25, 0.1)
    plain = {"ideal": False}
    fig12 = {n: bim(n, 32000, 1, fb, plain) for n in (2, 32)}
    fig14 = bim(32, 32000, 32, fb, plain)
    fig17 = sim([{"ports": 32, "sizes": "bimodal", "long": 32000 * 8, "long_bytes": x, "scheduling": "channels",
                  "channels": 32, "pool": 32} for x in fb])
    backlogged = sim([{"ports": 32, "sizes": "bimodal", "long": 32000 * 8, "long_bytes": x,
                       "scheduling": "channels", "channels": 32} for x in fb])
    n2 = [solver.no_conflict(*solver_point(2, 32000, x)) for x in fb]
    approx = [solver.overhead_fifo(*solver_point(32, 32000, x)) for x in fb]
    written.append(_plot(out, "circuit_overhead.png",
                         [("FIFO N = 2", fb, fig12[2]), ("FIFO N = 32", fb, fig12[32]), ("W = 32", fb, fig14),
                          ("channels L = 32, pool 32", fb, fig17)],
                         "share of bytes in long packets (BinL)",
                         "Figs. 12-17: overhead 2 + 5 us, bimodal 32000/100 B"))
    lines += ["## Figs. 12-17: overhead, bimodal sizes (long 32000 B), N = 32", "",
              "Logical channels two ways: `--pool 32` (the adapter holds 32 packets, each in its destination's "
              "channel, only heads go: the default) and backlogged (every channel always holds packets: a "
              "reading).", "",
              "| BinL | N = 2 renewal-reward | N = 2 simulated | FIFO N = 32 | approximation (solve) | W = 32 | "
              "channels L = 32, pool 32 | channels, backlogged |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {x} | {n2[k]:.4f} | {fig12[2][k].value:.4f} ± {fig12[2][k].half_width:.4f} | "
              f"{_fmt(fig12[32][k])} | {approx[k]:.3f} | "
              f"{_fmt(fig14[k])} | {_fmt(fig17[k])} | {_fmt(backlogged[k])} |" for k, x in enumerate(fb)]
    fixed = fixed_approx["800Mb/s", "request"]
    for label, xs, a, es in (("fixed size", sizes, fixed, over["800Mb/s", "request", 1]), ("BinL", fb, approx,
                                                                                         fig12[32])):
        for x, ax, e in zip(xs, a, es):
            add("(ours)", f"the FIFO overhead approximation's stated error holds ({label} {x:g})",
                f"{_fmt(e)} vs approximation {ax:.3f}", f"±{solver.OVERHEAD_ERROR}", within, e, ax,
                solver.OVERHEAD_ERROR)
    j = {x: k for k, x in enumerate(fb)}
    for x, a, e in zip(fb, n2, fig12[2]):
        add("12", f"N = 2 curve: no queuing, only overhead (renewal-reward; BinL {x:g})",
            f"{e.value:.4f} ± {e.half_width:.4f} vs {a:.4f}", f"±{READ}", within, e, a, READ)
    claims.order("12", "FIFO falls monotonically as BinL falls", [
        (f"BinL {fb[k]:g} above {fb[k + 1]:g}", fig12[32][k], fig12[32][k + 1]) for k in range(3)])
    add("12", "below 10 % when most bytes are in short packets", f"BinL 0.25: {_fmt(fig12[32][j[0.25]])}", "bound",
        at_most, fig12[32][j[0.25]], 0.10)
    # Fig. 14, first half: "a benefit of 20 % or more if most bytes are in long packets" (BinL 0.98 and 0.9), in
    # throughput points (the default, as §6.1's changes) and relative (a reading, judged first so that a default
    # disagreement can name it).
    rel = reading_name("800Mb/s", "request", "relative")
    for x in (0.98, 0.9):
        w, f = fig14[j[x]], fig12[32][j[x]]
        d_abs, d_rel = _pd(w, f), _pd(w, f, ratio=True)
        r = add("14", f"window benefit 20 % or more when most bytes are long (BinL {x:g}; relative: W = 32 / FIFO)",
                f"W = 32 / FIFO: {_d(d_rel, 2)}", f"bound, ±{READ / f.value:.3f}", at_least, d_rel, 1.2,
                READ / f.value, compares=True, reading=rel, otherwise="ambiguity", evidence=NOT_DEFAULT)
        add("14", f"window benefit 20 % or more when most bytes are long (BinL {x:g}; absolute: throughput points)",
            f"W = 32 minus FIFO: {_d(d_abs, 4)}", f"bound, ±{READ}", at_least, d_abs, 0.2, READ, compares=True,
            **(dict(otherwise="ambiguity", evidence=f"agrees under {rel}") if r == AGREE else {}))
    # Its second half: "as soon as a reasonable percentage of the bytes are in short packets, the value of window
    # scheduling disappears": W = 32 minus FIFO within SAME, from the most short bytes up, so a disagreement can
    # say where it agrees (the paper does not say which share is "reasonable").
    gone = []
    for x in (0.1, 0.25, 0.5):
        d = _pd(fig14[j[x]], fig12[32][j[x]])
        v = add("14", f"the window's benefit disappears once a reasonable share of bytes is short (BinL {x:g})",
                f"W = 32 minus FIFO: {_d(d)}", f"±{SAME}", within, d, 0.0, SAME, compares=True,
                **(dict(otherwise="ambiguity", evidence="the paper does not say which share of short bytes is "
                        f"reasonable; agrees at BinL {max(gone):g} and below") if gone else {}))
        if v == AGREE:
            gone.append(x)
    # Fig. 17's "almost identical" under both readings of logical channels, each within the same SAME.
    same17 = {}
    for k, name, es in (("pool 32", "default", fig17), ("backlogged", "logical channels backlogged", backlogged)):
        pool = agreeing(same17.get("pool 32", []))
        same17[k] = [add("17", f"logical channels (L = 32, {k}) and windows (W = 32) almost identical (BinL {x:g})",
                         f"channels minus W = 32: {_d(_pd(e, w32))}", f"±{SAME}", within, _pd(e, w32), 0.0, SAME,
                         compares=True, reading=name,
                         **(dict(otherwise="ambiguity", evidence=f"{NOT_DEFAULT}; the default (pool 32) agrees at "
                                 f"{pool} of {len(fb)} BinL") if k == "backlogged" else {}))
                     for x, e, w32 in zip(fb, es, fig14)]
    lines += ["", "![overhead](circuit_overhead.png)", "",
              f"The FIFO approximation (`switchq solve circuit`) is off by at most {_gap(approx, fig12[32]):.3f} "
              f"here and {_gap(fixed, over['800Mb/s', 'request', 1]):.3f} on fixed sizes (stated error "
              f"{solver.OVERHEAD_ERROR}).", "",
              "Logical channels against W = 32 (Fig. 17, \"almost identical\", read as within "
              f"{SAME}): " + " and ".join(f"{k}: {agreeing(v)} of {len(v)} BinL agree (largest gap "
              f"{_gap(fig14, fig17 if k == 'pool 32' else backlogged):.3f})" for k, v in same17.items())
              + "; " + reproducing({k: (agreeing(v), len(v)) for k, v in same17.items()}, "the paper's statement")
              + ".", ""]

    # ------------------------------------------------------------------ Figs. 13, 15, 16: long sizes, overheads
    longs, fl = (4000, 16000, 32000, 64000), (0.999, 0.98, 0.75, 0.5)
    fig13 = {w: {x: sim([{"ports": 32, "sizes": "bimodal", "long": g * 8, "long_bytes": x, "window": w,
                          "scheduling": "window" if w > 1 else "fifo"} for g in longs]) for x in fl} for w in (1, 32)}
    lines += ["## Figs. 13 and 15: the size of long packets with overhead, N = 32", "",
              "| BinL | scheduling | " + " | ".join(f"long {g} B" for g in longs) + " |",
              "|---:|---|" + "---:|" * len(longs)]
    lines += [f"| {x} | {'FIFO' if w == 1 else 'W = 32'} | " + " | ".join(_fmt(e) for e in fig13[w][x]) + " |"
              for w in (1, 32) for x in fl]
    f13 = fig13[1]
    claims.order("13", "FIFO: smaller long packets mostly better", [
        (f"BinL {x:g}: {longs[k]} B above {longs[k + 1]} B", f13[x][k], f13[x][k + 1])
        for x in (0.75, 0.5) for k in range(len(longs) - 1)])
    claims.order("13", "FIFO: almost all bytes long, larger long packets better", [
        (f"BinL 0.999: {longs[-1]} B above {longs[0]} B", f13[0.999][-1], f13[0.999][0])])
    for x in (0.75, 0.5):
        for k in range(1, len(longs)):
            d = _pd(fig13[32][x][k], fig13[32][x][0])
            add("15", f"W = 32, BinL below 75 %: the long size has little impact (BinL {x:g}, {longs[k]} B against "
                f"{longs[0]} B)", _d(d), f"±{SAME}", within, d, 0.0, SAME, compares=True)
    scales = (1, 2, 4)
    fig16 = {(g, w): sim([{"ports": 32, "sizes": "bimodal", "long": g * 8, "long_bytes": 0.9, "window": w,
                          "scheduling": "window" if w > 1 else "fifo", "select_time": 2e-6 * f,
                          "setup_time": 5e-6 * f} for f in scales]) for g in (4000, 64000) for w in (1, 32)}
    lines += ["", "## Fig. 16: overhead x1, x2, x4 (2 + 5 us each time), BinL 0.9, N = 32", "",
              "| long (B) | scheduling | x1 | x2 | x4 | kept at x4 |", "|---:|---|---:|---:|---:|---:|"]
    lines += [f"| {g} | {'FIFO' if w == 1 else 'W = 32'} | " + " | ".join(_fmt(e) for e in es)
              + f" | {es[-1].value / es[0].value:.2f} |" for (g, w), es in fig16.items()]
    ratio = lambda a, b, as_name: derived([a.row, b.row], "throughput", lambda x, y: x / y, as_name)  # noqa: E731
    for w in (1, 32):
        d = paired(ratio(fig16[64000, w][-1], fig16[64000, w][0], "kept"),
                   ratio(fig16[4000, w][-1], fig16[4000, w][0], "kept"), "kept")
        add("16", f"more overhead hurts more when packets are small ({'FIFO' if w == 1 else 'W = 32'}: share kept "
            "at x4, 64000 B minus 4000 B)", _d(d, 2), "paired difference ≥ 0", at_least, d, 0.0, compares=True)
    for g in (4000, 64000):
        d = paired(ratio(fig16[g, 32][0], fig16[g, 1][0], "gain"), ratio(fig16[g, 32][-1], fig16[g, 1][-1], "gain"),
                   "gain")
        add("16", f"with higher overheads, window scheduling becomes less effective ({g} B: W = 32 / FIFO at x1 "
            "minus at x4)", _d(d, 2), "paired difference ≥ 0", at_least, d, 0.0, compares=True)
    lines.append("")

    # ------------------------------------------------------------------ Fig. 18: central control
    fig_18(sim, claims, lines, sizes)

    # ------------------------------------------------------------------ Fig. 19: packet trains
    tb = (0.98, 0.9, 0.75, 0.5)
    trains = {}
    for w in (1, 32):
        base = {"ports": 32, "scheduling": "window" if w > 1 else "fifo", "window": w}
        trains[w] = {"32000 B": sim([{**base, "sizes": "bimodal", "long": 32000 * 8, "long_bytes": x} for x in tb]),
                     "8 x 4000 B": sim([{**base, "sizes": "train", "long": 32000 * 8, "train": 8, "long_bytes": x}
                                        for x in tb]),
                     "4000 B": sim([{**base, "sizes": "bimodal", "long": 4000 * 8, "long_bytes": x} for x in tb])}
    lines += ["", "## Fig. 19: packet trains (overhead), N = 32", "",
              "| BinL | " + " | ".join(f"{'FIFO' if w == 1 else 'W = 32'} {k}" for w in (1, 32) for k in trains[w])
              + " |", "|---:|" + "---:|" * 6]
    lines += [f"| {x} | " + " | ".join(f"{trains[w][k][q].value:.3f}" for w in (1, 32) for k in trains[w]) + " |"
              for q, x in enumerate(tb)]
    t1 = trains[1]
    claims.order("19", "FIFO: trains beat 32000-byte packets, and 4000-byte long packets beat both", [
        (f"BinL {x:g}: {a} above {b}", t1[a][q], t1[b][q]) for q, x in enumerate(tb)
        for a, b in (("4000 B", "8 x 4000 B"), ("8 x 4000 B", "32000 B"))])
    t32 = trains[32]
    for q, x in enumerate(tb):
        if x <= 0.75:
            for k in ("8 x 4000 B", "4000 B"):
                d = _pd(t32[k][q], t32["32000 B"][q])
                add("19", f"W = 32: the three very similar below 75 % BinL (BinL {x:g}: {k} against 32000 B)", _d(d),
                    f"±{SAME}", within, d, 0.0, SAME, compares=True)

    # ------------------------------------------------------------------ Fig. 20: file servers
    servers = (1, 2, 4, 8, 16)
    fs_rows = sim.rows([{"ports": 32, "scheduling": "window", "window": 32, "sizes": "bimodal", "long": 32000 * 8,
                         "long_bytes": 0.75, "file_servers": f} for f in servers])
    lines += ["", "## Fig. 20: file servers (W = 32, N = 32, long 32000 B)", "",
              "Clients send 80 % of their bytes to the servers (98 % of them in long packets), 20 % to other "
              "clients (75 %); servers send only to clients (98 %). Shares of each side's links:", "",
              "| servers | servers sending | servers receiving | clients sending (all) | clients to clients |",
              "|---:|---:|---:|---:|---:|"]
    fig20 = "the paper gives neither its x-axis's range nor how a server's receiving share is normalised"
    per_client = "servers' receiving normalised per sending client"
    low = {"default": [], per_client: []}
    for f, r in zip(servers, fs_rows):
        s, rv, cc = (est(r, m) for m in ("server_send", "server_receive", "client_client"))
        clients = sampled(r, lambda x, y, f=f: x * f / (32 - f) + y, "server_receive", "client_client")
        lines.append(f"| {f} | {_fmt(s)} | {_fmt(rv)} | {_fmt(clients)} | {_fmt(cc)} |")
        n = f"{f} server{'s' * (f > 1)}"
        add("20", f"servers send at high rates ({n})", _fmt(s), "bound, 0.5", at_least, s, 0.5)
        add("20", f"clients send only at a low rate ({n})", _fmt(clients), "bound, 0.5", at_most, clients, 0.5)
        # Receiving read two ways: per server link (the default), or per sending client (the servers' received
        # bytes over the 32 - f clients' links: what each client manages to send them), judged first.
        spare = {"default": sampled(r, lambda x, y: x - 2 * y, "server_send", "server_receive"),
                 per_client: sampled(r, lambda x, y, f=f: x - 2 * y * f / (32 - f), "server_send",
                                     "server_receive")}
        for name in (per_client, "default"):
            e = spare[name]
            kw = (dict(otherwise="ambiguity", evidence=f"{fig20}; agrees under {per_client}")
                  if name == "default" and f in low[per_client] else
                  dict(otherwise="ambiguity", evidence=fig20 if name == "default" else NOT_DEFAULT))
            v = add("20", f"servers receive at very low rates: below half what they send ({n})",
                    f"sending minus twice receiving: {e.value:+.3f} ± {e.half_width:.3f}", "bound, 0", at_least,
                    e, 0.0, reading=name, **kw)
            if v == AGREE:
                low[name].append(f)
    lines += ["", f"Of the server counts run ({listed(servers)}), the servers receive below half what they send "
              "(the interval reaching it) with " + " and ".join(
                  f"{listed(low[k], 'none')} {how}" for k, how in (("default", "per server link (the default)"),
                                                                 (per_client, "per sending client")))
              + f"; {fig20}: " + reproducing({k: (len(v), len(servers)) for k, v in low.items()},
                                            "the paper's \"very low rates\"") + ".", ""]

    # ------------------------------------------------------------------ the verdicts
    verdicts = [c[-1] for c in claims]
    head = ["## The paper's claims", "",
            f"{tally(verdicts)} claims agree under the default reading: {by_class(verdicts)} ({agreeing(verdicts)} "
            f"of {len(verdicts)} verdicts agree over every reading run; another reading's verdicts are rows of "
            f"their own, never counted here). Bounds on a change read from a figure (\"less than 15 %\") carry "
            f"the figure-reading tolerance {READ} (in throughput points; divided by the starting value when the "
            f"change is read as relative); \"almost identical\" and \"little impact\" are read as within {SAME}. "
            f"Where the paper allows two readings (Figs. {listed(_two_readings(claims))}) each is a row of its "
            "own, named in the reading column, and the section says which reproduces the paper.", ""]
    head += _claims_table(claims) + [""]
    at = lines.index("## The clock: a one-byte change of packet size")
    lines = lines[:at] + head + lines[at:]
    lines += ["", f"_Built in {time.time() - started:.0f} s._", ""]
    path = out / "circuit.md"
    path.write_text("\n".join(lines))
    return [path] + written
