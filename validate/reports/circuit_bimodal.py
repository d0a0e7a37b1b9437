"""Paper 001's Figs. 12-17 for the ``circuit`` report: distributed control's set-up overhead (2 + 5 us) with
bimodal sizes (§6.2-6.4): FIFO against its approximation and the no-conflict N = 2 curve, windows, logical
channels under two readings of the adapter's store, the size of long packets and larger overheads.

Each claim judged by the verdict engine (:mod:`switchq.validate.verdict`) through the report's claims list;
a reading of the paper's words is judged first and given to the default verdict with the sentence allowing both.
"""

from __future__ import annotations

from .circuit_claims import SAME, SAYS
from .circuit_common import diff_text, fmt3, paired_throughput, plot_throughput
from .circuit_overhead import READ, SIZES, reading_name, reproducing, solver_point
from .circuit_sizes import bimodal
from .claims import agreeing, at_least, at_most, derived, fmt, paired, shown, within

__all__ = ["figs_12_17", "figs_13_15", "fig_16"]


def _gap(a, b, digits: int = 3) -> float:
    """The largest gap between two curves, point by point, between printed values."""
    return max(abs(shown(x, digits) - shown(y, digits)) for x, y in zip(a, b))


def figs_12_17(sim, claims, lines: list, out, over, fixed_approx):
    """Figs. 12-17: overhead with bimodal sizes (long 32000 B), N = 32, and the FIFO approximation's stated
    error on them and on Figs. 10-11's fixed sizes (``over``, ``fixed_approx``); returns the plot's path."""
    from switchq.solvers import circuit as solver

    add, bim = claims.add, (lambda *a: bimodal(sim, *a))
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
    path = plot_throughput(out, "circuit_overhead.png",
                           [("FIFO N = 2", fb, fig12[2]), ("FIFO N = 32", fb, fig12[32]), ("W = 32", fb, fig14),
                           ("channels L = 32, pool 32", fb, fig17)],
                           "share of bytes in long packets (BinL)",
                           "Figs. 12-17: overhead 2 + 5 us, bimodal 32000/100 B")
    lines += ["## Figs. 12-17: overhead, bimodal sizes (long 32000 B), N = 32", "",
              "Logical channels two ways: `--pool 32` (the adapter holds 32 packets, each in its destination's "
              "channel, only heads go: the default) and backlogged (every channel always holds packets: a "
              "reading).", "",
              "| BinL | N = 2 renewal-reward | N = 2 simulated | FIFO N = 32 | approximation (solve) | W = 32 | "
              "channels L = 32, pool 32 | channels, backlogged |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {x} | {n2[k]:.4f} | {fmt(fig12[2][k], 4)} | "
              f"{fmt3(fig12[32][k])} | {approx[k]:.3f} | "
              f"{fmt3(fig14[k])} | {fmt3(fig17[k])} | {fmt3(backlogged[k])} |" for k, x in enumerate(fb)]
    fixed = fixed_approx["800Mb/s", "request"]
    for label, xs, a, es in (("fixed size", SIZES, fixed, over["800Mb/s", "request", 1]), ("BinL", fb, approx,
                                                                                         fig12[32])):
        for x, ax, e in zip(xs, a, es):
            add("(ours)", f"the FIFO overhead approximation's stated error holds ({label} {x:g})",
                f"{fmt3(e)} vs approximation {ax:.3f}", f"±{solver.OVERHEAD_ERROR}", within, e, ax,
                solver.OVERHEAD_ERROR, section="Fig. 10" if label == "fixed size" else "Fig. 12")
    j = {x: k for k, x in enumerate(fb)}
    for x, a, e in zip(fb, n2, fig12[2]):
        add("12", f"N = 2 curve: no queuing, only overhead (renewal-reward; BinL {x:g})",
            f"{fmt(e, 4)} vs {a:.4f}", f"±{READ}", within, e, a, READ, quote=SAYS["12 N2"])
    claims.order("12", "FIFO falls monotonically as BinL falls", [
        (f"BinL {fb[k]:g} above {fb[k + 1]:g}", fig12[32][k], fig12[32][k + 1]) for k in range(3)], quote=SAYS["12"])
    add("12", "below 10 % when most bytes are in short packets", f"BinL 0.25: {fmt3(fig12[32][j[0.25]])}", "bound",
        at_most, fig12[32][j[0.25]], 0.10, quote=SAYS["12 below"])
    # Fig. 14, first half: "a benefit of 20 % or more if most bytes are in long packets" (BinL 0.98 and 0.9), in
    # throughput points (the default, as §6.1's changes) and relative (a reading, judged first and given to the
    # default with the sentence, which does not say which).
    rel = reading_name("800Mb/s", "request", "relative")
    for x in (0.98, 0.9):
        w, f = fig14[j[x]], fig12[32][j[x]]
        d_abs, d_rel = paired_throughput(w, f), paired_throughput(w, f, ratio=True)
        says = f"window benefit 20 % or more when most bytes are long (BinL {x:g})"
        r = add("14", says, f"W = 32 / FIFO: {diff_text(d_rel, 2)}", f"bound, ±{READ / f.value:.3f}", at_least, d_rel, 1.2,
                READ / f.value, compares=True, reading=rel, quote=SAYS["14"])
        add("14", says, f"W = 32 minus FIFO: {diff_text(d_abs, 4)}", f"bound, ±{READ}", at_least, d_abs, 0.2, READ,
            compares=True, quote=SAYS["14"], readings=[r], allows=SAYS["14"])
    # Its second half: "as soon as a reasonable percentage of the bytes are in short packets, the value of window
    # scheduling disappears": W = 32 minus FIFO within SAME, from the most short bytes up (the paper does not say
    # which share is "reasonable"; each share is a claim of its own, not a reading of one).
    for x in (0.1, 0.25, 0.5):
        d = paired_throughput(fig14[j[x]], fig12[32][j[x]])
        add("14", f"the window's benefit disappears once a reasonable share of bytes is short (BinL {x:g})",
            f"W = 32 minus FIFO: {diff_text(d)}", f"±{SAME}", within, d, 0.0, SAME, compares=True, quote=SAYS["14 gone"])
    # Fig. 17's "almost identical" under both readings of logical channels, each within the same SAME: backlogged
    # judged first, and given to the default (pool 32) with the sentence leaving the adapter's store open.
    same17 = {}
    for k, name, es in (("backlogged", "logical channels backlogged", backlogged), ("pool 32", "default", fig17)):
        other = same17.get("backlogged")
        same17[k] = [add("17", f"logical channels (L = 32) and windows (W = 32) almost identical (BinL {x:g})",
                         f"channels minus W = 32: {diff_text(paired_throughput(e, w32))}", f"±{SAME}", within, paired_throughput(e, w32), 0.0, SAME,
                         compares=True, reading=name, quote=SAYS["17"],
                         **(dict(readings=[other[q]], allows=SAYS["17 adapter"]) if other else {}))
                     for q, (x, e, w32) in enumerate(zip(fb, es, fig14))]
    same17 = {k: same17[k] for k in ("pool 32", "backlogged")}
    lines += ["", "![overhead](circuit_overhead.png)", "",
              f"The FIFO approximation (`switchq solve circuit`) is off by at most {_gap(approx, fig12[32]):.3f} "
              f"here and {_gap(fixed, over['800Mb/s', 'request', 1]):.3f} on fixed sizes (stated error "
              f"{solver.OVERHEAD_ERROR}).", "",
              "Logical channels against W = 32 (Fig. 17, \"almost identical\", read as within "
              f"{SAME}): " + " and ".join(f"{k}: {agreeing(v)} of {len(v)} BinL agree (largest gap "
              f"{_gap(fig14, fig17 if k == 'pool 32' else backlogged):.3f})" for k, v in same17.items())
              + "; " + reproducing({k: (agreeing(v), len(v)) for k, v in same17.items()}, "the paper's statement")
              + ".", ""]
    return path


def figs_13_15(sim, claims, lines: list) -> None:
    """Figs. 13 and 15: the size of long packets with overhead, FIFO and W = 32, N = 32."""
    add = claims.add
    longs, fl = (4000, 16000, 32000, 64000), (0.999, 0.98, 0.75, 0.5)
    fig13 = {w: {x: sim([{"ports": 32, "sizes": "bimodal", "long": g * 8, "long_bytes": x, "window": w,
                          "scheduling": "window" if w > 1 else "fifo"} for g in longs]) for x in fl} for w in (1, 32)}
    lines += ["## Figs. 13 and 15: the size of long packets with overhead, N = 32", "",
              "| BinL | scheduling | " + " | ".join(f"long {g} B" for g in longs) + " |",
              "|---:|---|" + "---:|" * len(longs)]
    lines += [f"| {x} | {'FIFO' if w == 1 else 'W = 32'} | " + " | ".join(fmt3(e) for e in fig13[w][x]) + " |"
              for w in (1, 32) for x in fl]
    f13 = fig13[1]
    claims.order("13", "FIFO: smaller long packets mostly better", [
        (f"BinL {x:g}: {longs[k]} B above {longs[k + 1]} B", f13[x][k], f13[x][k + 1])
        for x in (0.75, 0.5) for k in range(len(longs) - 1)], quote=SAYS["13"])
    claims.order("13", "FIFO: almost all bytes long, larger long packets better", [
        (f"BinL 0.999: {longs[-1]} B above {longs[0]} B", f13[0.999][-1], f13[0.999][0])], quote=SAYS["13 long"])
    for x in (0.75, 0.5):
        for k in range(1, len(longs)):
            d = paired_throughput(fig13[32][x][k], fig13[32][x][0])
            add("15", f"W = 32, BinL below 75 %: the long size has little impact (BinL {x:g}, {longs[k]} B against "
                f"{longs[0]} B)", diff_text(d), f"±{SAME}", within, d, 0.0, SAME, compares=True, quote=SAYS["15"])


def fig_16(sim, claims, lines: list) -> None:
    """Fig. 16: the overhead x1, x2, x4, BinL 0.9, N = 32: more overhead hurts small packets and windows more."""
    add = claims.add
    scales = (1, 2, 4)
    fig16 = {(g, w): sim([{"ports": 32, "sizes": "bimodal", "long": g * 8, "long_bytes": 0.9, "window": w,
                          "scheduling": "window" if w > 1 else "fifo", "select_time": 2e-6 * f,
                          "setup_time": 5e-6 * f} for f in scales]) for g in (4000, 64000) for w in (1, 32)}
    lines += ["", "## Fig. 16: overhead x1, x2, x4 (2 + 5 us each time), BinL 0.9, N = 32", "",
              "| long (B) | scheduling | x1 | x2 | x4 | kept at x4 |", "|---:|---|---:|---:|---:|---:|"]
    lines += [f"| {g} | {'FIFO' if w == 1 else 'W = 32'} | " + " | ".join(fmt3(e) for e in es)
              + f" | {es[-1].value / es[0].value:.2f} |" for (g, w), es in fig16.items()]
    ratio = lambda a, b, as_name: derived([a.row, b.row], "throughput", lambda x, y: x / y, as_name)  # noqa: E731
    for w in (1, 32):
        d = paired(ratio(fig16[64000, w][-1], fig16[64000, w][0], "kept"),
                   ratio(fig16[4000, w][-1], fig16[4000, w][0], "kept"), "kept")
        add("16", f"more overhead hurts more when packets are small ({'FIFO' if w == 1 else 'W = 32'}: share kept "
            "at x4, 64000 B minus 4000 B)", diff_text(d, 2), "paired difference ≥ 0", at_least, d, 0.0, compares=True,
            quote=SAYS["16"])
    for g in (4000, 64000):
        d = paired(ratio(fig16[g, 32][0], fig16[g, 1][0], "gain"), ratio(fig16[g, 32][-1], fig16[g, 1][-1], "gain"),
                   "gain")
        add("16", f"with higher overheads, window scheduling becomes less effective ({g} B: W = 32 / FIFO at x1 "
            "minus at x4)", diff_text(d, 2), "paired difference ≥ 0", at_least, d, 0.0, compares=True,
            quote=SAYS["16 window"])
    lines.append("")
