"""Section 1 of the multicast report: one 8 x 8 switch, mean fanout 4 (paper 003 §3.1, Figs 13-14).

The paper's crosspoint-buffered output-queued switch against FIFO input
queuing with and without fanout splitting and WBA (its ref. [19]): curves of
throughput and latency against load, and the saturation table against the
exact chains and the paper's figures.
"""

from __future__ import annotations

from pathlib import Path

from .. import est
from ..claims import AGREE, agreeing, at_least, listed, paired, printed, within
from .common import (ARCHS, PAPER_OQ, PAPER_WBA, SAID_13, SAID_14, SAID_19, SAID_TWO_OR_FOUR, Plan, Section, curve,
                     how, judged, latency, pm, save, simulated)

# The simulator against an exact chain (not a paper's claim): its interval must lie within this of the chain's
# value (packets/slot/input).
CHAIN_TOL = 0.001
# "Close to 0.25" (Fig. 13) read as within this share of the admissible bound: a reading, not the default.
CLOSE_TO = 0.05

__all__ = ["single_switch"]


def _point(arch, q, load, m, law="uniform", arrivals="poisson"):
    return {"arch": arch, "ports": 8, "crosspoint_cells": q, "load": load, "inputs": m, "fanout": 4,
            "fanout_distribution": law, "arrivals": arrivals}


def single_switch(p: Plan, out: Path, progress: bool = False, store=None) -> Section:
    """Figs 13-14 (§3.1): one 8 x 8 switch, mean fanout 4, five architectures."""
    from switchq.solvers import multicast

    sim = _simulate(p, progress, store)
    sec = Section()
    curves = figs_13_14(sec, p, out, sim)
    sat, sat_p, checks = saturation_table(sec, p, sim)
    qs = (1, 2, 3, 4, 8)
    by_q = dict(zip(qs, (sim("oq-crosspoint", q, 1.0, 2, "uniform", "bernoulli", True) for q in qs)))
    bound8 = multicast.admissible_load(8, 8, 4)
    v = _judge(sat, sat_p, by_q, bound8)
    _reading(sec, p, sim, curves, sat, sat_p, checks, by_q, v)
    _summary(sec, v, by_q, bound8)
    sec.verdicts += [c for _, c in checks]
    return sec


def _simulate(p: Plan, progress: bool, store):
    """Every point of the section, run through the sweep engine in two batches (curves, saturation table);
    returns ``sim(arch, q, load, m, law, arrivals, table)``, the row of one."""
    variants = [(a, q, "poisson") for a, q in ARCHS] + [("oq-crosspoint", 4, "bernoulli")]
    curve_keys = [(arch, q, x, m, "uniform", arrivals) for m, loads in ((8, p.loads_8x8), (2, p.loads_2x8))
                  for arch, q, arrivals in variants for x in loads]
    table_keys = [(arch, q, 1.0, m, law, arrivals) for m in (2, 8) for arch, q in ARCHS
                  for law, arrivals in (("uniform", "bernoulli"), ("fixed", "bernoulli"), ("uniform", "poisson"))]
    table_keys += [("oq-crosspoint", q, 1.0, 2, "uniform", "bernoulli") for q in (2, 3, 8)]   # Q = 1, 4: above
    found = {**dict(zip(curve_keys, simulated(p, "switch", "multicast", [_point(*k) for k in curve_keys],
                                             progress, store))),
            **{("table",) + k: r for k, r in zip(table_keys, simulated(p, "table", "multicast",
                                                                        [_point(*k) for k in table_keys],
                                                                        progress, store))}}

    def sim(arch, q, load, m, law="uniform", arrivals="poisson", table=False):
        return found[(("table",) if table else ()) + (arch, q, load, m, law, arrivals)]

    return sim


def figs_13_14(sec: Section, p: Plan, out: Path, sim) -> dict:
    """Figs 13-14: the section's set-up, the curves' plot and the table along them (oq-crosspoint Q = 4 with
    Poisson and Bernoulli arrivals, iq-wba's latency); returns each curve's rows by (inputs, arch, Q, arrivals)."""
    sec.lines += ["## 1. One switch: multicast of mean fanout 4 (Figs 13-14, §3.1)", "",
                  "An 8 x 8 switch with all 8 inputs active (Fig. 13) or 2 (the paper's \"2X8\", Fig. 14). A "
                  "packet's destination set has a size uniform on 1..7 (mean 4, our reading of \"random "
                  "destinations with an average fanout of 4\") and is uniform given its size. Arrivals are "
                  "Poisson as in the paper (slotted: a Poisson number of packets of mean `load` per input per "
                  "slot) unless marked Bernoulli. oq-crosspoint is the paper's switch (Q packets per crosspoint; "
                  "a packet crosses once, when all its crosspoints have a credit; its credits return when its last "
                  "copy leaves); iq-split / iq-nosplit are FIFO input queuing with / without fanout splitting; "
                  "iq-wba is fanout splitting with the weight-based grants of ref. [19]. Latency: slots from "
                  "arrival until the last copy leaves. " + how(p), ""]
    curves = _draw_curves(p, out, sim)
    sec.files.append(out / "multicast_switch.png")

    sec.lines += ["![single switch](multicast_switch.png)", "",
                  "Along the curves of Figs 13-14: oq-crosspoint (Q = 4) throughput and latency (slots) with "
                  "Poisson and Bernoulli arrivals, and the latency of the best input queue, iq-wba (\"sat.\": the "
                  "run did not carry its load). The paper draws these curves and states only where they "
                  "saturate (next table), so there is no paper column.", "",
                  "| switch (paper fig.) | load | oq Q=4 throughput, Poisson | latency, Poisson | "
                  "latency, Bernoulli | iq-wba latency, Poisson |", "|---|---:|---:|---:|---:|---:|"]
    for m in (8, 2):
        rows = zip(p.loads_8x8 if m == 8 else p.loads_2x8, curves[m, "oq-crosspoint", 4, "poisson"],
                   curves[m, "oq-crosspoint", 4, "bernoulli"], curves[m, "iq-wba", 4, "poisson"])
        for x, r, b, w in rows:
            lat = [latency(v, x) for v in (r, b, w)]
            sec.lines.append(f"| {m} x 8 (Fig. {13 if m == 8 else 14}) | {x:g} | "
                             f"{pm(r.throughput, r.throughput_ci95)} | " + " | ".join(lat) + " |")
    return curves


def saturation_table(sec: Section, p: Plan, sim) -> tuple:
    """The saturation table (load 1.0, both fanout laws) against the exact chains and the paper; each exact
    chain's check is a verdict. Returns the uniform law's rows with Bernoulli and with Poisson arrivals by
    (inputs, arch, Q), and the checks as (|simulated - exact|, verdict)."""
    from switchq.solvers import multicast

    # Saturation table: load 1.0, both fanout laws, against the exact chains and the paper.
    sec.lines += ["", "### Saturation throughput (load 1.0; Figs 13-14 and the [19] figures quoted in §3.1)", "",
                  "Throughput in packets per slot per active input with every active input saturated (then the "
                  "arrival process no longer matters: the Poisson and Bernoulli columns agree). \"Analytic\" is "
                  "`switchq.solvers.multicast.saturation_load`: an exact lumped Markov chain where tractable, the "
                  "labelled independence approximation for iq-split 8 x 8, otherwise none. The paper's numbers "
                  "are from its text; Δ = ours (uniform law, Bernoulli) − paper. " + how(p, "table"), "",
                  "| switch | architecture | simulated: size uniform 1..7 | same, Poisson | analytic, uniform | "
                  "simulated: size fixed 4 | analytic, fixed | paper | Δ |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    sat, sat_p, checks = {}, {}, []   # sat_p: Poisson arrivals (the paper's); checks: (|simulated - exact|, half-width) wherever an exact chain exists
    for m in (2, 8):
        for arch, q in ARCHS:
            r_u, r_f = sim(arch, q, 1.0, m, "uniform", "bernoulli", True), sim(arch, q, 1.0, m, "fixed", "bernoulli", True)
            r_p = sim(arch, q, 1.0, m, "uniform", "poisson", True)
            sat[m, arch, q], sat_p[m, arch, q] = r_u, r_p
            an = []
            for law in ("uniform", "fixed"):
                if arch == "iq-wba":
                    an.append("— (simulator only)")
                    continue
                a = multicast.saturation_load(arch, 8, m, 4, law, crosspoint_cells=q)
                if a.exact:
                    r = r_u if law == "uniform" else r_f
                    checks.append((abs(r.throughput - a.saturation_load),
                                   within(est(r, "throughput"), a.saturation_load, CHAIN_TOL, section="§3.1",
                                          claim=f"{m} x 8 {arch} Q = {q}, {law} fanout: simulated against the "
                                                "exact chain", saturated=True)))
                an.append("—" if a.saturation_load is None else
                          f"{a.saturation_load:.4f} ({'exact' if a.exact else 'approx.'})")
            paper = (PAPER_WBA[m] if arch == "iq-wba" else PAPER_OQ[m] if (arch, q) == ("oq-crosspoint", 4) else None)
            delta = "—" if paper is None else (f"{r_u.throughput - float(paper):+.3f} "
                                               f"({(r_u.throughput / float(paper) - 1):+.0%})")
            name = f"{arch}, Q = {q}" if arch == "oq-crosspoint" else arch
            sec.lines.append(f"| {m} x 8 | {name} | {pm(r_u.throughput, r_u.throughput_ci95)} | "
                             f"{pm(r_p.throughput, r_p.throughput_ci95)} | {an[0]} | "
                             f"{pm(r_f.throughput, r_f.throughput_ci95)} | {an[1]} | "
                             f"{'—' if paper is None else paper} | {delta} |")
    return sat, sat_p, checks


def _reading(sec: Section, p: Plan, sim, curves, sat, sat_p, checks, by_q, v) -> None:
    """The crosspoint-size line and the section's reading: the paper's figures, the exact chains, WBA."""
    o2, o8 = sat_p[2, "oq-crosspoint", 4].throughput, sat_p[8, "oq-crosspoint", 4].throughput
    knee = [(x, r) for x, r in zip(p.loads_2x8, curves[2, "oq-crosspoint", 4, "poisson"]) if x in (0.8, 0.9)]
    wba = {m: sat_p[m, "iq-wba", 4].throughput for m in (2, 8)}
    iq_best = {m: max(sat_p[m, a, 4].throughput for a in ("iq-split", "iq-nosplit", "iq-wba")) for m in (2, 8)}
    claims, why = v["claims"], v["why"]
    wba_v, beats = v["wba"], v["beats"]
    chain = [c for _, c in checks]
    fixed4 = sim("oq-crosspoint", 4, 1.0, 2, "fixed", "bernoulli", True).throughput
    sec.lines += ["", "2 x 8 oq-crosspoint saturation against the crosspoint size Q (uniform law): " +
                  ", ".join(f"Q = {q}: {pm(r.throughput, r.throughput_ci95, 3)}" for q, r in by_q.items()) + ".",
                  "",
                  f"**Reading.** Verdicts on the Poisson runs (the paper's arrivals); Bernoulli is a reading of its "
                  f"own. 8 x 8 (Fig. 13): oq-crosspoint (Q = 4) saturates at {o8:.3f}, {1 - o8 / 0.25:.1%} "
                  f"under the admissible bound 0.25; against the paper's {PAPER_OQ[8]}: {claims[8]}"
                  + ("" if claims[8] == AGREE else f" ({claims[8].why}; {why[8]})") + ". "
                  + ("No input queue reaches it" if iq_best[8] < o8 else "An input queue reaches it")
                  + f" (best {iq_best[8]:.3f}). "
                  f"2 x 8 (Fig. 14): {o2:.3f} against the paper's {PAPER_OQ[2]} ({o2 / 0.8 - 1:+.0%}): {claims[2]}"
                  + ("" if claims[2] == AGREE else f" ({claims[2].why}; {why[2]})") + ". "
                  + ("" if claims[2] == AGREE else
                     "A credit round trip longer than our one slot (Table 1: 20 ns channel each way, 90 ns switch, "
                     "a 250 MHz pipeline) would likewise make 4 buffers act like fewer; and \"saturates at 0.8\" "
                     "may be read from a Poisson latency curve, whose knee comes before the saturation load"
                     + (": with Poisson arrivals our latency is " + ", ".join(
                         f"{latency(r, x, 1)} slots at {x:g}" for x, r in knee) if knee else "") + ". ")
                  + "With a fixed fanout of 4 the 2 x 8 figures are "
                  + ("lower" if sat[2, "oq-crosspoint", 4].throughput > fixed4 else "not lower")
                  + " (the two inputs' sets overlap more often). Simulation and exact chains differ by at most "
                  f"{max(d for d, _ in checks):.4f} over the {len(checks)} cases with a chain; their intervals lie "
                  f"within {CHAIN_TOL} of the chain in {agreeing(chain)} of {len(chain)}. "
                  f"WBA against [19]'s figures as §3.1 quotes them: {wba[2]:.3f} vs {PAPER_WBA[2]} ({wba_v[2]}), "
                  f"{wba[8]:.3f} vs {PAPER_WBA[8]} ({wba_v[8]}); §3.1 gives them as the figures of [19]'s virtual "
                  "output-queued routers, and our iq-wba is our reading of [19]'s weights. The output-queued switch "
                  "carries more than WBA (paired difference, same seeds) at "
                  + listed([f"{m} x 8" for m in (2, 8) if beats[m] == AGREE]) + " ("
                  f"{o2:.3f} vs {wba[2]:.3f}, {o8:.3f} vs {wba[8]:.3f}).", ""]


def _draw_curves(p: Plan, out: Path, sim) -> dict:
    """Figs 13-14's curves, drawn to multicast_switch.png; returns each curve's rows by (inputs, arch, Q,
    arrivals)."""
    import matplotlib.pyplot as plt

    from switchq.solvers import multicast

    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    curves = {}
    for row, (m, loads) in enumerate(((8, p.loads_8x8), (2, p.loads_2x8))):
        for arch, q, arrivals in [(a, q, "poisson") for a, q in ARCHS] + [("oq-crosspoint", 4, "bernoulli")]:
            res = [sim(arch, q, x, m, arrivals=arrivals) for x in loads]
            curves[m, arch, q, arrivals] = res
            label = (f"{arch} Q={q}" if arch == "oq-crosspoint" else arch) + (", Bernoulli" if arrivals == "bernoulli" else "")
            style = "s--" if arrivals == "bernoulli" else "o-"
            curve(axes[row, 0], loads, res, "throughput", label, style)
            curve(axes[row, 1], loads, res, "mean_latency", label, style, carried_only=True)
        bound = multicast.admissible_load(8, m, 4)
        for ax in axes[row]:
            ax.axvline(bound, color="grey", ls="--", lw=0.8, label=f"admissible bound {bound:g}")
            ax.set_xlabel("offered load (packets/slot/active input)")
            ax.grid(alpha=0.3, which="both")
        axes[row, 0].plot(loads, loads, ":", color="grey", lw=0.8)
        axes[row, 0].set_ylabel("throughput (packets/slot/active input)")
        axes[row, 0].set_title(f"{m} x 8: throughput (Fig. {13 if m == 8 else 14})")
        axes[row, 1].set_ylabel("mean packet latency (slots)")
        axes[row, 1].set_yscale("log")
        axes[row, 1].set_title(f"{m} x 8: latency, carried loads only (Fig. {13 if m == 8 else 14})")
    axes[0, 0].legend(fontsize=7)
    s = p.settings()
    save(fig, out / "multicast_switch.png", f"8-port switch, mean fanout 4 (paper 003 Figs 13-14); seed {p.seed}, "
          f"{s.slots} slots x {s.replications} replications, 95 % CI bars")
    return curves


def _judge(sat, sat_p, by_q, bound8) -> dict:
    """The section's verdicts on the paper's saturation figures (Poisson arrivals, the paper's, are the default
    reading), each other reading of a claim judged first so that its verdict is evidence for the default's."""
    claim = {m: f"Fig. {14 if m == 2 else 13}: {m} x 8 oq-crosspoint saturates at {PAPER_OQ[m]}" for m in (2, 8)}
    said = {2: SAID_14, 8: SAID_13}
    fig = {2: "Fig. 14", 8: "Fig. 13"}
    # Q = 2: §3.1 gives no crosspoint size, §2 two or four round trips (with every input saturated the arrival
    # process no longer matters, so these Bernoulli runs stand for Poisson ones). "Close to 0.25": the tolerance
    # "close to" allows, read as within CLOSE_TO of the admissible bound.
    other = {2: within(est(by_q[2], "throughput"), *printed(PAPER_OQ[2]), claim=claim[2], section=fig[2],
                       reading="Q = 2 (Bernoulli)", quote=said[2], saturated=True),
             8: within(est(sat_p[8, "oq-crosspoint", 4], "throughput"), bound8, CLOSE_TO * bound8, claim=claim[8],
                       section=fig[8], reading=f"close to: within {CLOSE_TO:.0%}", quote=said[8], saturated=True)}
    allows = {2: SAID_TWO_OR_FOUR, 8: SAID_13}
    # Bernoulli arrivals: shown, not evidence for the default (§3.1 states Poisson arrivals; no sentence allows both).
    bernoulli = {m: within(est(sat[m, "oq-crosspoint", 4], "throughput"), *printed(PAPER_OQ[m]), claim=claim[m],
                           section=fig[m], reading="Bernoulli arrivals", quote=said[m], saturated=True)
                 for m in (2, 8)}
    claims = {m: within(est(sat_p[m, "oq-crosspoint", 4], "throughput"), *printed(PAPER_OQ[m]), claim=claim[m],
                        section=fig[m], quote=said[m], readings=[other[m]], allows=allows[m], saturated=True)
              for m in (2, 8)}
    why = {2: f"§3.1 does not say how many packets its single switch holds per crosspoint (its networks use 2 or "
              f"4); with 2 it is {by_q[2].throughput:.3f}: {other[2]}",
           8: f"the paper says \"close to 0.25\", the admissible bound {bound8:g}, which a finite switch stays "
              f"under; read as within {CLOSE_TO:.0%} of it: {other[8]}"}
    # 0.65 and 0.22 are [19]'s routers' figures, as §3.1 says: a miss there is not about this model.
    wba = {}
    for reading, runs in (("Bernoulli arrivals", sat), ("default", sat_p)):
        for m in (2, 8):
            wba[reading, m] = within(est(runs[m, "iq-wba", 4], "throughput"), *printed(PAPER_WBA[m]),
                                     claim=f"§3.1: WBA ([19]) saturates at {PAPER_WBA[m]}, {m} x 8", section="§3.1",
                                     reading=reading, quote=SAID_19, not_about=SAID_19, saturated=True)
    # "Output queuing does better than [19]": the paired difference of the two switches (same seeds).
    beats = {m: at_least(paired(sat_p[m, "oq-crosspoint", 4], sat_p[m, "iq-wba", 4], "throughput"), 0.0,
                         compares=True, claim=f"§3.1: the output-queued switch carries more than WBA, {m} x 8",
                         section="§3.1", quote=SAID_19, saturated=True)
             for m in (2, 8)}
    return {"claims": claims, "other": other, "why": why, "bernoulli": bernoulli, "beats": beats,
            "wba": {m: wba["default", m] for m in (2, 8)}, "wba_b": {m: wba["Bernoulli arrivals", m] for m in (2, 8)}}


def _summary(sec: Section, v: dict, by_q, bound8) -> None:
    """The section's rows of the report's summary table, each printing the interval its verdict was judged on."""
    claims, other = v["claims"], v["other"]
    tol = {m: f"± {printed(PAPER_OQ[m])[1]:g}" for m in (2, 8)}
    sec.claim("Fig. 14", "2 x 8 oq-crosspoint saturates at", PAPER_OQ[2], judged(claims[2], 3), tol[2], claims[2],
              f"crosspoint size not stated in §3.1 (our Q = 2: {by_q[2].throughput:.3f}); knee of a Poisson curve")
    sec.claim("Fig. 14", "2 x 8 oq-crosspoint saturates at, Q = 2", PAPER_OQ[2], judged(other[2], 3), tol[2],
              other[2], "Bernoulli arrivals")
    sec.claim("Fig. 13", "8 x 8 oq-crosspoint saturates near", PAPER_OQ[8], judged(claims[8], 3), tol[8], claims[8],
              "0.25 is the admissible bound; a finite switch stays a little under it")
    sec.claim("Fig. 13", "8 x 8 oq-crosspoint saturates close to", PAPER_OQ[8], judged(other[8], 3),
              f"± {CLOSE_TO * bound8:g} ({CLOSE_TO:.0%})", other[8], "")
    for m in (2, 8):
        sec.claim("§3.1, [19]", f"WBA (\"VOQ\"), {m} x 8", PAPER_WBA[m], judged(v["wba"][m]),
                  f"± {printed(PAPER_WBA[m])[1]:g}", v["wba"][m], "quoted from [19]; our WBA weights are our reading of it")
    for m in (2, 8):
        b = v["beats"][m]
        sec.claim("§3.1", f"output queuing beats [19], {m} x 8", "yes", judged(b, 3, signed=True),
                  "paired difference at least 0", b, "")
    # The same claims with Bernoulli arrivals: the other reading of the arrival process.
    for m in (2, 8):
        for w, arch, paper in ((v["bernoulli"][m], "oq-crosspoint", PAPER_OQ[m]), (v["wba_b"][m], "iq-wba", PAPER_WBA[m])):
            where = "§3.1, [19]" if arch == "iq-wba" else "Fig. 14" if m == 2 else "Fig. 13"
            sec.claim(where, f"{m} x 8 {arch} saturates at", paper, judged(w), f"± {printed(paper)[1]:g}", w,
                      "Bernoulli arrivals: the other reading of the arrival process")
