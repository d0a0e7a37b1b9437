"""Report ``cioq``: how much speedup an input-queued switch needs (Dai & Prabhakar 2000; Chuang et al. 1999).

Saturation throughput of a CIOQ switch with PIM or iSLIP phases against
the speedup S, analytic min(1, S θ) beside simulation; and the mean wait at
S = N with maximal phases, which must be output queuing's (Karol et al.).
Every comparison carries a verdict of the engine (:mod:`switchq.validate.verdict`):
the simulated interval, from at least 5 replications, against the exact value.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import begin, est, page, points, pyplot, readings
from .claims import Quote, cell, fmt, listed, tally, within
from .readings import Reading

TITLE = "CIOQ: how much speedup does an input-queued switch need?"
INTRO = ("A combined input-output queued switch runs S matching phases per slot between its VOQs and its output "
         "queues. Simulated figures are means over independent replications with 95 % Student-t half-widths. A "
         "verdict is the engine's: `agree` when the whole interval lies within the stated tolerance of the exact "
         "value, from a run shown stable (a throughput past saturation excepted: its run is overloaded by "
         "design); `inconclusive` when it reaches past the tolerance after replications were added up to "
         "four times the point's own; `defect` otherwise. No verdict stands on fewer than 5 replications or on "
         "point values.")
SPEEDUPS = (1, 2, 3, 4)
LOAD = 0.9
REPLICATIONS = 8
# Replications the engine may take a point to before calling its interval inconclusive (x REPLICATIONS).
BUDGET = 4
# The simulator against exact values: agree when the whole 95 % interval lies within these of the value (cells/slot;
# relative for the mean wait): finer than any modelling error, and a correct simulator's interval lies inside them
# at these run lengths.
THROUGHPUT_TOL = 0.001
WAIT_REL_TOL = 0.01

# Output queuing's internal bandwidth, as paper 000 states it for a shared buffer: k times the link's, a speedup of N.
DATA_PATH = Quote("paper 000 §1", "it is required that the width of the data path inside a switch be k times the "
                  "width of its input/output link.")
# The report's readings table (issue 36, item 1): Dai & Prabhakar and Chuang et al. are not on this machine and the
# report quotes no sentence of theirs, so only paper 000's sentence is cited. No default is chosen by how many rows
# it makes agree: the source decides where it can, else the most literal reading.
CHOICES = (
    Reading("arrivals", "Bernoulli, destinations uniform and independent", "Bernoulli", (),
            "not stated in a sentence quoted here (Dai & Prabhakar's result holds for any admissible traffic); the "
            "most literal reading is the traffic θ and Karol et al.'s output-queuing wait are defined for"),
    Reading("offered load", f"{LOAD} (throughput); 0.3, 0.6, 0.8, 0.9 (mean wait)", f"{LOAD}", (),
            "not stated; load 1 cannot be judged (an output that carries everything is critically loaded, its "
            f"queue a random walk, and no run settles), so a load below it, {LOAD}, which S = 1 with PIM cannot "
            "carry"),
    Reading("the analytic throughput", "min(load, min(1, S θ)), θ the saturated matching's throughput per phase "
            "(PIM's exact recursion; 1 for iSLIP)", "min(load, min(1, S θ))", (),
            "not stated in this form by the sources: S saturated phases each carry θ, and an output sends at most "
            "one cell per slot (exact for PIM, whose grants are memoryless); with S = 2 and maximal matchings it "
            "is Dai & Prabhakar's full throughput"),
    Reading("saturation", "where S θ < load, the throughput carried (a run overloaded by design); elsewhere the "
            "load, from a run shown stable", "the throughput carried", (),
            "not stated; the most literal reading of a saturation throughput is what an overloaded switch carries"),
    Reading("a phase's matching", "PIM and iSLIP, one iteration (throughput); iSLIP with N iterations, maximal "
            "(S = N)", "one iteration", (), "not stated; the most literal reading of PIM or iSLIP with no count "
            "given is one request-grant-accept round; a maximal matching where output queuing is claimed, since "
            "only then does every cell reach its output in its slot"),
    Reading("the speedup that is output queuing", "S = N with maximal phases (Chuang et al.'s S = 2 needs a "
            "stable-marriage matching, not simulated)", "S = N with maximal phases", (DATA_PATH,),
            "backed by the text: paper 000 asks output queuing's shared buffer for a data path k times the "
            "link's, the bandwidth of N phases; with it every cell reaches its output in its slot, so the wait is "
            "output queuing's exactly"),
    Reading("the simulator against an exact value", f"the whole 95 % interval within {THROUGHPUT_TOL} cells/slot "
            f"(throughput) or {WAIT_REL_TOL:.0%} (mean wait)", f"within {THROUGHPUT_TOL} cells/slot", (),
            "not stated (no claim of a source: these check the simulator); finer than any modelling error, and "
            "a correct simulator's interval lies inside them at these run lengths"),
)


def _rows(params, slots, warmup, seed, workers, store, progress):
    rows = points("cioq", params, slots=slots, warmup=warmup, replications=REPLICATIONS, seed=seed, workers=workers,
                  store=store, progress=progress)
    for r in rows:       # what est() counts: the replications each row was run with
        r.setdefault("replications", REPLICATIONS)
    return rows


def build(out: Path, quick: bool = False, workers: int = 0, seed: int = 1, store=None) -> list[Path]:
    from switchq.solvers import cioq

    started = begin("cioq", BUDGET)
    plt = pyplot()
    scale = 0.1 if quick else 1.0
    progress = sys.stderr.isatty()
    n, reps = 16, REPLICATIONS
    # iSLIP at S = 1 needs some 10^4 slots to settle at this load (its queues still fill in a shorter run): the
    # warm-up keeps them, quick or not. The measured slots are 2.5 times as many, so that the latency trend, the
    # one stability test that sees a critically loaded queue, can be judged (the time since the start must grow 3x
    # across the measured segments).
    warmup = max(int(40_000 * scale), 10_000)
    slots = int(2.5 * warmup)
    verdicts = []
    body = [f"## Throughput against speedup, N = {n}, uniform Bernoulli traffic at load {LOAD}", "",
            f"Analytic: the switch carries min(load, min(1, S θ)), θ the saturated matching's throughput per "
            f"phase (`switchq solve cioq`). The load is {LOAD}, not 1: at load 1 an output that carries "
            "everything is critically loaded and its queue drifts like a random walk, so no run settles. "
            f"Simulation: {slots} measured slots after {warmup} of warm-up (iSLIP's pointers take long to "
            f"desynchronise), {reps} replications per point; the analytic values are exact, and a simulated one "
            f"agrees when its 95 % interval lies within {THROUGHPUT_TOL} cells/slot of it. Where S θ < {LOAD} the "
            "switch is offered more than it carries (flagged unstable, by design) and is judged on the throughput "
            "it carries, its saturation throughput; elsewhere the run must be shown stable.", "",
            "| matching | S | saturation min(1, S θ) | analytic | simulated (judged, replications) | verdict |",
            "|---|---:|---:|---:|---:|---|"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for matching, style in (("pim", "o-"), ("islip", "s--")):
        rows = _rows([{"ports": n, "speedup": s, "matching": matching, "load": LOAD} for s in SPEEDUPS], slots,
                     warmup, seed, workers, store, progress)
        sims = [est(r, "throughput") for r in rows]
        for s, e, r in zip(SPEEDUPS, sims, rows):
            sat = cioq.saturation_throughput(n, s, matching, 1).saturation_throughput
            a = min(LOAD, sat)
            v = within(e, a, THROUGHPUT_TOL, claim=f"CIOQ {matching}, S = {s}: throughput min(load, S θ)",
                       section="Dai & Prabhakar 2000", saturated=sat < LOAD)
            verdicts.append(v)
            body.append(f"| {matching} | {s} | {sat:.4f} | {a:.4f} | {fmt(v, 4)} ({v.n})"
                        + (" (saturated)" if r.get("unstable") else "") + f" | {cell(v)} |")
        ax.errorbar(SPEEDUPS, [e.value for e in sims], yerr=[e.half_width for e in sims], fmt=style, capsize=2,
                    label=f"{matching}, simulated")
        ax.plot(SPEEDUPS, [min(LOAD, cioq.saturation_throughput(n, s, matching, 1).saturation_throughput)
                           for s in SPEEDUPS], ":", color="grey")
    ax.set_xlabel("speedup S (matching phases per slot)")
    ax.set_ylabel(f"throughput at load {LOAD} (cells/slot/output)")
    ax.set_xticks(SPEEDUPS)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(f"CIOQ, N = {n}: dotted lines min(load, 1, S θ)")
    fig.tight_layout()
    fig.savefig(out / "cioq_speedup.png", dpi=110)
    plt.close(fig)
    body += ["", "![speedup](cioq_speedup.png)", ""]

    m = 8
    loads = (0.3, 0.6, 0.8, 0.9)
    rows = _rows([{"ports": m, "speedup": m, "iterations": m, "load": p} for p in loads], int(100_000 * scale), None,
                 seed, workers, store, progress)
    body += [f"## S = N = {m} with maximal phases is output queuing", "",
             f"iSLIP with {m} iterations per phase (maximal), {int(100_000 * scale)} measured slots, {reps} "
             "replications. Analytic: output queuing's mean wait (N - 1)/N p / (2 (1 - p)), exact: a simulated "
             f"mean agrees when its interval lies within {WAIT_REL_TOL:.0%} of its value, from a run shown "
             "stable. A point the stability test flags is judged too (an unstable run cannot agree with a finite "
             "wait) and prints its backlog growth.", "",
             "| load | analytic wait (slots) | simulated (judged, replications) | verdict |", "|---:|---:|---:|---|"]
    flagged = []
    for p, r in zip(loads, rows):
        a = cioq.mean_wait(m, m, "islip", m, p).mean_wait
        v = within(est(r, "mean_wait"), a, WAIT_REL_TOL * a,
                   claim=f"CIOQ S = N = {m}, load {p}: output queuing's mean wait", section="Karol et al. 1987")
        verdicts.append(v)
        shown = fmt(v, 4) + f" ({v.n})"
        if r.get("unstable"):
            flagged.append(f"{p:g}")
            shown = (f"unstable (backlog +{r.get('backlog_growth', float('nan')):.0f}, "
                     f"{r.get('backlog_growth_allowed', float('nan')):.0f} allowed): {shown}")
        body.append(f"| {p} | {a:.4f} | {shown} | {cell(v)} |")
    body += ["", f"The simulation agrees with the exact figure at {tally(verdicts)} rows"
             + (f"; flagged unstable at load {listed(flagged)}" if flagged else "") + ".", ""]
    # The readings table closes the page, before the build time: its sources are papers other than the five.
    body += readings.table(CHOICES, source="source")
    path = page(out, "cioq", TITLE, INTRO, verdicts, body, started, quick=quick, seed=seed)
    return [path, out / "cioq_speedup.png"]
