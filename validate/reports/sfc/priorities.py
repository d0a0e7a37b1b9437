"""Fig. 5 of paper 002: two strict priorities, bursty uniform traffic, N = 16: credits, SFC, SFC + replacement.

The paper's claims, each with a computed verdict: speculation cuts the
latency of both priorities; replacement cuts the high priority's further;
that gain does not raise the low priority's mean latency.
"""

from __future__ import annotations

from switchq.validate.result import Estimate

from ..claims import AGREE, DISAGREE, listed, tally
from .common import DELAY_PRECISION, Plan, Section, save, switch

LOADS = (0.1, 0.3, 0.5, 0.7, 0.8, 0.9)
VARIANTS = (("SFC off", "credit", False), ("SFC", "sfc", False), ("SFC + replacement", "sfc", True))


def _by_priority(row) -> tuple:
    """(P0, P1) estimates of a two-priority row."""
    values, cis = row["mean_latency_by_priority"], row["mean_latency_by_priority_ci95"]
    return tuple(Estimate(v, lo, hi) for v, (lo, hi) in zip(values, cis))


def _below(a: Estimate, b: Estimate) -> bool:
    """a lower than b beyond both intervals."""
    return a.high < b.low


def priorities(p: Plan, out) -> Section:
    import matplotlib.pyplot as plt

    sec = Section()
    sec.lines += ["## Two priorities, strict priority, bursty uniform traffic, N = 16 (Fig. 5)", "",
                  "Half of the bursts are high priority (P0). Mean burst latency P0 / P1 / all, in slots. Verdicts "
                  "(columns): SFC below SFC off for both priorities, beyond both intervals (\"speculation "
                  "drastically reduces the latency of low- as well as of high-priority traffic\"); replacement "
                  "below SFC for P0, beyond both intervals (\"the high-priority latency is further reduced\"); "
                  f"replacement's P1 at most {DELAY_PRECISION:.0%} above SFC's (\"does not incur an increase of "
                  "the mean latency of low-priority traffic\", within the paper's delay precision).", "",
                  "| tau | B | load | " + " | ".join(v[0] for v in VARIANTS) + " | SFC cuts both | replacement "
                  "cuts P0 | P1 not raised |", "|---:|---:|---:|---|---|---|---|---|---|"]
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    cut_both, cut_p0, p1_kept, p0_loads, replaced = [], [], [], [], {}
    for row_i, tau in enumerate((8, 32)):
        for col, burst in enumerate((10, 20)):
            ax = axes[row_i, col]
            res = {label: p.run([{**switch(16, tau, proto, priorities=2, replacement=repl), "load": x,
                                  "burst": float(burst)} for x in LOADS], 20_000)
                   for label, proto, repl in VARIANTS}
            for i, load in enumerate(LOADS):
                repl = res[VARIANTS[2][0]][i]
                replaced[tau, burst, load] = 1000 * repl["replacements"] / max(repl["delivered"], 1)
                (o0, o1), (s0, s1), (r0, r1) = (_by_priority(res[v[0]][i]) for v in VARIANTS)
                v1 = AGREE if _below(s0, o0) and _below(s1, o1) else DISAGREE
                v2 = AGREE if _below(r0, s0) else DISAGREE
                v3 = AGREE if r1.value <= s1.value * (1 + DELAY_PRECISION) else DISAGREE
                cut_both.append(v1)
                cut_p0.append(v2)
                p1_kept.append(v3)
                if v2 == AGREE:
                    p0_loads.append(f"{load} (tau = {tau}, B = {burst})")
                cells = [f"{a.value:.1f} / {b.value:.1f} / {res[v[0]][i]['mean_latency']:.1f}"
                         for v, (a, b) in zip(VARIANTS, ((o0, o1), (s0, s1), (r0, r1)))]
                sec.lines.append(f"| {tau} | {burst} | {load} | " + " | ".join(cells) + f" | {v1} | {v2} | {v3} |")
            for k, (label, _, _) in enumerate(VARIANTS):
                tp = [r["throughput"] for r in res[label]]
                ax.plot(tp, [r["mean_latency_by_priority"][0] for r in res[label]], "o-", color=f"C{k}",
                        label=f"{label} P0")
                ax.plot(tp, [r["mean_latency_by_priority"][1] for r in res[label]], "s--", color=f"C{k}",
                        label=f"{label} P1")
            ax.set_title(f"tau = {tau}, mean burst {burst}")
            ax.set_xlabel("throughput")
            ax.set_ylabel("mean burst latency (slots)")
            ax.set_yscale("log")
            ax.grid(alpha=0.3, which="both")
    axes[0, 0].legend(fontsize=7)
    path = out / "sfc_fig5.png"
    save(fig, path, f"Two priorities (paper 002 Fig. 5); seed {p.seed}")
    sec.files.append(path)
    sec.lines += ["", f"- SFC cuts both priorities' latency at {tally(cut_both)} points.",
                  f"- Replacement cuts P0's further at {tally(cut_p0)} points: at loads {listed(p0_loads)}. It acts "
                  "only when a cell finds its crosspoint full: replacements per 1000 cells delivered at tau = 8, "
                  "B = 10 run " + ", ".join(f"{replaced[8, 10, x]:.1f} at {x}" for x in LOADS) + ".",
                  f"- Replacement leaves P1 within {DELAY_PRECISION:.0%} of SFC's at {tally(p1_kept)} points.",
                  "", "![Fig. 5](sfc_fig5.png)", ""]
    return sec
