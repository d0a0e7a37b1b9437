"""Paper 001's Figs. 2-9 for the ``circuit`` report: packet sizes on the ideal switch (§5), no set-up overhead.

Uniform sizes (Figs. 2-4), bimodal sizes (Figs. 5-7) and the size of long and short packets (Figs. 8-9), each
claim judged by the verdict engine (:mod:`switchq.validate.verdict`) through the report's claims list.
"""

from __future__ import annotations

from .circuit_claims import IDEAL, SAME, SAYS, TRUNCATED
from .circuit_common import diff_text, fmt3, paired_throughput, plot_throughput
from .claims import at_least, at_most, derived, paired, printed, within

__all__ = ["BINL", "bimodal", "figs_2_4", "figs_5_7", "figs_8_9"]

BINL = (1.0, 0.98, 0.9, 0.75, 0.5, 0.25, 0.1)     # shares of bytes in long packets of Figs. 5-7


def bimodal(sim, n, long, w=1, f=BINL, extra=IDEAL) -> list:
    """Points of bimodal sizes (short 100 B, long ``long`` bytes) on ``n`` ports, one per share of bytes in long
    packets in ``f``; FIFO, or a window of ``w``."""
    return sim([{"ports": n, **extra, "sizes": "bimodal", "long": long * 8, "long_bytes": x,
                 "scheduling": "window" if w > 1 else "fifo", "window": w} for x in f])


def figs_2_4(sim, claims, lines: list) -> None:
    """Figs. 2-4: uniform sizes on the ideal switch, N = 32, FIFO against its N -> infinity limit; a large
    window's uniform against fixed sizes."""
    from switchq.solvers import circuit as solver
    from switchq.models.circuit import CircuitTraffic

    add = claims.add
    spans = ((16000, 16000), (12000, 20000), (8000, 24000), (0, 32000))
    uni = sim([{"ports": 32, **IDEAL, "sizes": "uniform", "size_min": lo * 8, "size_max": hi * 8}
               for lo, hi in spans])
    limits = [solver.fifo_limit(solver.size_moments(CircuitTraffic("uniform", size_min=lo, size_max=hi))[1]
                                / ((lo + hi) / 2) ** 2 - 1) for lo, hi in spans]
    # Each law given only its own sizes (the model refuses a size that does not apply; it never used it).
    w_uni = sim([{"ports": 32, **IDEAL, "scheduling": "window", "window": 32, "sizes": s, "size_min": 0,
                  "size_max": 32000 * 8, **({"size": 16000 * 8} if s == "fixed" else {})}
                 for s in ("uniform", "fixed")])
    lines += ["## Figs. 2-4: uniform sizes, ideal switch, N = 32", "",
              "| sizes (bytes) | FIFO simulated | N -> infinity limit 1/(1 + sqrt((1 + C^2)/2)) |",
              "|---|---:|---:|"]
    lines += [f"| [{lo}, {hi}] | {fmt3(e)} | {a:.4f} |" for (lo, hi), e, a in zip(spans, uni, limits)]
    claims.order("2", "FIFO throughput falls as u - l grows", [
        (f"[{a[0]}, {a[1]}] above [{b[0]}, {b[1]}]", uni[k], uni[k + 1])
        for k, (a, b) in enumerate(zip(spans, spans[1:]))], quote=SAYS["2"])
    gap = paired_throughput(w_uni[0], w_uni[1])
    add("3-4", "large windows: uniform [0, 32000] vs fixed, difference negligible",
        f"W = 32: {fmt3(w_uni[0])} vs {fmt3(w_uni[1])}; uniform minus fixed {diff_text(gap)}", f"±{SAME}", within, gap,
        0.0, SAME, compares=True, quote=SAYS["3-4"])


def figs_5_7(sim, claims, lines: list, out):
    """Figs. 5-7: bimodal sizes (short 100 B) on the ideal switch; returns the plot's path."""
    from switchq.solvers import circuit as solver
    from switchq.models.circuit import CircuitTraffic

    add, binl, bim = claims.add, BINL, (lambda *a: bimodal(sim, *a))
    fig5 = {n: bim(n, 16000) for n in (4, 16, 64)}
    fig6 = bim(32, 64000)
    fig7 = bim(32, 32000, 32)
    path = plot_throughput(out, "circuit_bimodal.png",
                           [(f"FIFO N = {n}, L = 16000", binl, fig5[n]) for n in fig5]
                           + [("FIFO N = 32, L = 64000", binl, fig6), ("W = 32 N = 32, L = 32000", binl, fig7)],
                           "share of bytes in long packets (BinL)", "Figs. 5-7: ideal switch, bimodal sizes")
    lines += ["", "## Figs. 5-7: bimodal sizes (short 100 B), ideal switch", "",
              "| BinL | FIFO N=4 L=16000 | FIFO N=16 | FIFO N=64 | FIFO N=32 L=64000 | W=32 N=32 L=32000 |",
              "|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {x} | {fmt3(fig5[4][k])} | {fmt3(fig5[16][k])} | {fmt3(fig5[64][k])} | {fmt3(fig6[k])} | "
              f"{fmt3(fig7[k])} |" for k, x in enumerate(binl)]
    i = {x: k for k, x in enumerate(binl)}
    m1, m2 = solver.size_moments(CircuitTraffic("bimodal", long=16000, long_bytes=0.9))
    c2 = m2 / m1 ** 2 - 1
    limit = solver.fifo_limit(c2)
    # No derivation backs a disagreement at 0.22: the N -> infinity limit (Karol's argument in continuous time)
    # and finite N sitting above it are not rules the paper states (issue 36 re-judges it).
    for x, text in ((1.0, "0.60"), (0.9, "0.22")):
        t, tol = printed(text)
        add("5", f"N = 16: {text} at BinL {x:g}", fmt3(fig5[16][i[x]]), f"±{tol}", within, fig5[16][i[x]], t, tol,
            quote=SAYS["5"])
    near = min(binl, key=lambda x: abs(fig5[16][i[x]].value - 0.22))
    claims.order("5", "large N (64): minimum with bytes about equally split", [
        (f"BinL {x:g} above BinL 0.5", fig5[64][i[x]], fig5[64][i[0.5]]) for x in (0.9, 0.1)],
        quote=SAYS["5 minimum"])
    add("6", "64000-byte long packets: worse than 15 % (BinL 0.5)", fmt3(fig6[i[0.5]]), "bound", at_most,
        fig6[i[0.5]], 0.15, quote=SAYS["6"])
    # §5.2 prints these as whole percentages ("to 56% with 50%"): rounded (the default, half a point either side)
    # or cut after the point (56 % = 0.56 .. 0.57), a reading judged first and given to the default with the
    # sentence, which says nothing of how its percentages were cut.
    for x, text in ((1.0, "0.97"), (0.75, "0.59"), (0.5, "0.56")):
        t, tol = printed(text)
        says, e = f"W = 32: {text} at BinL {x:g}", fig7[i[x]]
        cut = add("7", says, fmt3(e), f"[{t:g}, {t + 2 * tol:g}]", within, e, t + tol, tol, reading=TRUNCATED,
                  quote=SAYS["7"])
        add("7", says, fmt3(e), f"±{tol}", within, e, t, tol, quote=SAYS["7"], readings=[cut], allows=SAYS["7"])
    lines += ["", "![bimodal](circuit_bimodal.png)", "",
              f"The paper's 0.22 for N = 16 at 90 % BinL is where our N = 16 curve is at BinL {near} "
              f"({fig5[16][i[near]].value:.3f}); at 90 % we get {fig5[16][i[0.9]].value:.3f}, and FIFO's N -> "
              f"infinity limit for these sizes is {limit:.3f} (C² = {c2:.2f}); our N = 16 interval "
              f"({fig5[16][i[0.9]].low:.3f} .. {fig5[16][i[0.9]].high:.3f}) lies "
              + ("above it" if fig5[16][i[0.9]].low > limit else "not above it") + ".", ""]
    return path


def figs_8_9(sim, claims, lines: list) -> None:
    """Figs. 8-9: the size of long (and short) packets, ideal switch, N = 32, BinL 0.9."""
    add = claims.add
    longs = (4000, 16000, 64000)
    fig8 = {w: sim([{"ports": 32, **IDEAL, "sizes": "bimodal", "long": g * 8, "long_bytes": 0.9,
                     "scheduling": "window" if w > 1 else "fifo", "window": w} for g in longs]) for w in (1, 32)}
    fig9 = {sh: sim([{"ports": 32, **IDEAL, "sizes": "bimodal", "short": sh * 8, "long": g * 8, "long_bytes": 0.9}
                     for g in longs]) for sh in (100, 200)}
    lines += ["## Figs. 8-9: the size of long (and short) packets, ideal switch, N = 32, BinL 0.9", "",
              "| long (B) | FIFO | W = 32 | FIFO, short 200 B |", "|---:|---:|---:|---:|"]
    lines += [f"| {g} | {fmt3(fig8[1][k])} | {fmt3(fig8[32][k])} | {fmt3(fig9[200][k])} |"
              for k, g in enumerate(longs)]
    claims.order("8", "smaller long packets share the network better", [
        (f"{'FIFO' if w == 1 else 'W = 32'}: {longs[k]} B above {longs[k + 1]} B", fig8[w][k], fig8[w][k + 1])
        for w in (1, 32) for k in range(2)], quote=SAYS["8"])
    kept = {w: derived([fig8[w][-1].row, fig8[w][0].row], "throughput", lambda a, b: a / b, "kept") for w in (1, 32)}
    d = paired(kept[32], kept[1], "kept")
    add("8", "with a large window the long size matters less (share kept from 4000 to 64000 B)",
        f"kept: FIFO {fig8[1][-1].value / fig8[1][0].value:.2f}, W = 32 {fig8[32][-1].value / fig8[32][0].value:.2f}"
        f"; W = 32 minus FIFO {diff_text(d)}", "paired difference ≥ 0", at_least, d, 0.0, compares=True,
        quote=SAYS["8 window"])
    claims.order("9", "200-byte short packets do slightly better than 100-byte ones", [
        (f"long {g} B", fig9[200][k], fig9[100][k]) for k, g in enumerate(longs)], quote=SAYS["9"])
    lines.append("")
