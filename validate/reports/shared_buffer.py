"""Report ``shared-buffer``: a shared-memory switch's thresholds, closed form and exact chain against the twin.

The dynamic threshold's overload equilibrium (Choudhury & Hahne 1998) over alpha and the number of congested
queues; the static threshold, complete sharing and partitioning beside it as the active queues change; the
exact chain of a small switch's queue lengths; and the largest N:1 incast burst a queue absorbs, over degree,
alpha and memory. Every comparison carries a verdict of the engine (:mod:`switchq.validate.verdict`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from switchq.models.shared_buffer import overflowing_burst

from . import Row, begin, est, page, points, pyplot, readings
from .claims import cell, exactly, fmt, paired, tally, within
from .readings import Reading
from .shared_buffer_lossless import lossless_size_section, margins_section, pfc_section

TITLE = "Shared-memory switch: dynamic thresholds, overload and incast"
INTRO = ("N output queues share one memory of B cells; a cell joins its queue by the admission policy. Simulated "
         "figures are means over independent replications with 95 % Student-t intervals, occupancies sampled at "
         "each slot's end after its departures. A verdict is the engine's: `agree` when the whole interval lies "
         "within the stated tolerance of the analytic value, `inconclusive` when it reaches past it after "
         "replications were added up to the budget, `defect` otherwise. The overload and incast twins are "
         "deterministic (every feeder sends every slot; bursts are synchronized), so their replications agree "
         "exactly and their intervals have no width: what is checked is the slotted switch's arithmetic against "
         "the fluid closed form, which differ by under a cell.")
REPLICATIONS = 5
BUDGET = 4
CELL_BITS = 256 * 8
ALPHAS = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8)
CONGESTED = (1, 2, 4, 8, 16, 32)
B = 1000

CHOICES = (
    Reading("admission", "a cell joins while its queue is shorter than alpha x the free memory (dt); T (st); "
            "while a cell is free (cs); while shorter than floor(B/N) (cp)", "dt", (),
            "the issue's definitions (Choudhury & Hahne 1998's dynamic threshold); the twin's code is its own"),
    Reading("sampling", "slot end, after departures", "slot end, after departures", (),
            "the issue states it: 'occupancy sampled at slot end after departures'"),
    Reading("overload", "each congested queue fed a cell every slot by 2 inputs (64 ports where S >= 16)",
            "2 feeders", (), "the issue states it: 'each congested queue fed by two inputs'"),
    Reading("tolerance", "the whole interval within 1 cell of the fluid value", "1 cell", (),
            "the slotted queue refills to its threshold each slot and is sampled after a departure: up to a cell "
            "under the fluid value; tighter than the issue's max(2 %, 1 cell)"),
)


def _ports(s):
    return 64 if s >= 16 else 32


def _overload_section(seed, workers, store, progress, verdicts, plt, out):
    from switchq.solvers.shared_buffer import overload

    params = [{"ports": _ports(s), "buffer": B * CELL_BITS, "cell": CELL_BITS, "alpha": a, "congested": s}
              for s in CONGESTED for a in ALPHAS]
    rows = points("shared-buffer", params, slots=4000, warmup=2000, replications=REPLICATIONS, seed=seed,
                  workers=workers, store=store, progress=progress)
    body = ["## Overload: each congested queue's share against alpha and S", "",
            f"B = {B} cells of 256 B; S queues each fed a cell every slot by two inputs (32 ports, 64 where S >= "
            "16). Analytic: alpha B / (1 + alpha S) per queue (`switchq solve shared-buffer --congested S`). "
            "Band: [q - 1, q], as the slotted queue, refilled to its threshold every slot and sampled after a "
            "departure, sits under the fluid q by less than a cell (a queue above q fails).", "",
            "| S | alpha | analytic (cells) | simulated (cells) | free: analytic / simulated | verdict |",
            "|---:|---:|---:|---:|---:|---|"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for s in CONGESTED:
        xs, ys, fl = [], [], []
        for a in ALPHAS:
            p = next(i for i, q in enumerate(params) if q["congested"] == s and q["alpha"] == a)
            r, f = rows[p], overload(_ports(s), B, 256, "dt", a, s)
            v = within(est(r, "queue_occupancy"), f.queue_cells - 0.5, 0.5,
                       claim=f"dt overload S = {s}, alpha {a:g}: alpha B / (1 + alpha S)",
                       section="Choudhury & Hahne 1998")
            verdicts.append(v)
            body.append(f"| {s} | {a:g} | {f.queue_cells:.2f} | {fmt(v, 4)} | {f.free_cells:.1f} / "
                        f"{r['free_cells']:.1f} | {cell(v)} |")
            xs.append(a), ys.append(v.value), fl.append(f.queue_cells)
        line, = ax.plot(xs, ys, "o", label=f"S = {s}")
        ax.plot(xs, fl, "-", color=line.get_color(), alpha=0.5)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("alpha")
    ax.set_ylabel("cells per congested queue")
    ax.set_title(f"Dynamic threshold under overload, B = {B} cells: simulated (dots), alpha B/(1+alpha S) (lines)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "shared-buffer_overload.png", dpi=110)
    plt.close(fig)
    return body + ["", "![overload](shared-buffer_overload.png)", ""]


def _robustness_section(seed, workers, store, progress, verdicts):
    """The 1998 paper's argument: a static threshold is right for one number of active queues only."""
    from switchq.solvers.shared_buffer import overload

    policies = (("dt", {"alpha": 1.0}), ("st", {"policy": "st", "threshold": 250 * CELL_BITS}),
                ("cs", {"policy": "cs"}), ("cp", {"policy": "cp"}))
    params = [{"ports": _ports(s), "buffer": B * CELL_BITS, "cell": CELL_BITS, "congested": s, **kw}
              for s in CONGESTED for _, kw in policies]
    rows = points("shared-buffer", params, slots=4000, warmup=2000, replications=REPLICATIONS, seed=seed,
                  workers=workers, store=store, progress=progress)
    body = ["## Dynamic against static thresholds as the number of congested queues changes", "",
            "The same overload at each policy: dt with alpha 1; st with T = 250 cells (B/4, right for S = 4); cs; "
            "cp (floor(B/N) each). Analytic: the fluid balance (`switchq solve shared-buffer --policy P "
            "--congested S`). A static threshold leaves memory idle when fewer queues are active than it was "
            "tuned for and lets the memory fill when more are; the dynamic one keeps B/(1 + alpha S) free at "
            "every S (sampled after departures, about a cell more per congested queue). Tolerance: the band "
            "[q - 1, q].", "",
            "| S | policy | analytic per queue | simulated per queue | simulated free (cells) | verdict |",
            "|---:|---|---:|---:|---:|---|"]
    for k, (s, (name, kw)) in enumerate(((s, pk) for s in CONGESTED for pk in policies)):
        r = rows[k]
        f = overload(_ports(s), B, 256, name, kw.get("alpha"), s, threshold_cells=250 if name == "st" else None)
        v = within(est(r, "queue_occupancy"), f.queue_cells - 0.5, 0.5, claim=f"{name} overload S = {s}: fluid share",
                   section="derived (solvers.shared_buffer)")
        verdicts.append(v)
        body.append(f"| {s} | {name} | {f.queue_cells:.1f} | {fmt(v, 4)} | {r['free_cells']:.1f} | {cell(v)} |")
    return body + [""]


def _class_row(row, name, k):
    """Row ``row`` with class ``k``'s figure of a per-class metric ``name`` in its place (est reads it so)."""
    sub = Row({**row, name: row[name][k], name + "_ci95": row[name + "_ci95"][k]})
    sub.pop(name + "_samples", None)
    sub.domains = getattr(row, "domains", {})
    return sub


def _priority_section(seed, workers, store, progress, verdicts):
    """Several priorities per port, each with its own alpha: the congested queues share the memory in proportion."""
    from switchq.solvers.shared_buffer import overload

    setups = (((1.0, 1.0), 4), ((2.0, 0.5), 4), ((4.0, 0.25), 4), ((8.0, 0.125), 2), ((8.0, 2.0, 0.5, 0.125), 4),
              ((8.0, 2.0, 0.5, 0.125), 8))
    params = [{"ports": 32, "buffer": B * CELL_BITS, "cell": CELL_BITS, "priorities": len(a), "priority_alphas": a,
               "congested": s} for a, s in setups]
    rows = points("shared-buffer", params, slots=4000, warmup=2000, replications=REPLICATIONS, seed=seed,
                  workers=workers, store=store, progress=progress)
    body = ["## Several priorities per port, each with its own alpha", "",
            "P queues per output, sent in strict priority; the k-th of S congested queues is output k's queue of "
            "priority k mod P, fed a cell every slot by two inputs, and each priority has its own alpha "
            "(`--priorities P --priority-alphas ...`). Analytic: each queue at its alpha times the memory left "
            "free, q_i = alpha_i F with F = B / (1 + sum of the congested queues' alphas) (`switchq solve "
            "shared-buffer --priorities P --priority-alphas ... --congested S`; the fixed point of Hahne & "
            "Choudhury 2002's per-class thresholds, derived in `solvers/shared_buffer.py`). The slotted switch "
            "is not the fluid: within a slot the free memory a queue's threshold sees runs from F* + S (the S "
            "departures not yet refilled) down to F*, the free memory once every queue is refilled, so a queue "
            "settles between alpha_i F* and alpha_i (F* + S); with F* + sum q = B that puts F* in [F - S, F] and "
            "each queue, sampled after its departure, in [q_i - alpha_i S - 1, q_i + alpha_i S]. Judged per "
            "priority, the mean of its congested queues, in that band: wide for a large alpha (one cell of free "
            "memory moves its threshold by alpha cells), a cell wide for alpha 1/S. The free memory, sampled "
            "after the S departures, is tighter: F* + S, in [F, F + S], judged once per row of alphas.", "",
            "| alphas | S | F (cells) | priority | analytic per queue | band | simulated per queue | verdict |",
            "|---|---:|---:|---:|---:|---|---:|---|"]
    for (alphas, s), r in zip(setups, rows):
        f = overload(32, B, 256, "dt", None, s, priorities=len(alphas), priority_alphas=alphas)
        free = within(est(r, "free_cells"), f.free_cells + s / 2, s / 2,
                      claim=f"priorities {alphas}, S = {s}: free memory after departures in [F, F + S]",
                      section="derived (solvers.shared_buffer)")
        verdicts.append(free)
        body.append(f"| {', '.join(f'{a:g}' for a in alphas)} | {s} | {f.free_cells:.2f} | free | "
                    f"{f.free_cells:.2f} | [{f.free_cells:.2f}, {f.free_cells + s:.2f}] | {fmt(free, 3)} | "
                    f"{cell(free)} |")
        for k, q in enumerate(f.priority_queue_cells):
            if q is None:
                continue
            half = alphas[k] * s + 0.5                   # the band [q - alpha S - 1, q + alpha S]
            v = within(est(_class_row(r, "priority_occupancy", k), "priority_occupancy"), q - 0.5, half,
                       claim=f"priorities {alphas}, S = {s}: priority {k}'s share alpha_i F",
                       section="derived (solvers.shared_buffer)")
            verdicts.append(v)
            body.append(f"| {', '.join(f'{a:g}' for a in alphas)} | {s} | {f.free_cells:.2f} | {k} | {q:.2f} | "
                        f"[{q - half - 0.5:.2f}, {q + half - 0.5:.2f}] | {fmt(v, 3)} | {cell(v)} |")
    return body + [""]


def _chain_section(seed, workers, store, progress, verdicts):
    from switchq.solvers.shared_buffer_chain import chain

    cases = ((4, 20, {"alpha": 1.0}, 0.9, {}), (4, 20, {"alpha": 0.25}, 0.9, {}), (4, 20, {"policy": "cs"}, 0.9, {}),
             (4, 16, {"policy": "cp"}, 0.9, {}), (4, 16, {"policy": "st", "threshold": 6 * CELL_BITS}, 0.95, {}),
             (4, 12, {"policy": "pushout"}, 0.95, {"pattern": "hotspot", "hotspot_fraction": 0.3}),
             (2, 60, {"alpha": 2.0}, 0.95, {"pattern": "hotspot", "hotspot_fraction": 0.5}))
    params = [{"ports": n, "buffer": b * CELL_BITS, "cell": CELL_BITS, "load": load, **kw, **tr}
              for n, b, kw, load, tr in cases]
    rows = points("shared-buffer", params, slots=200_000, warmup=2000, replications=8, seed=seed, workers=workers,
                  store=store, progress=progress)
    body = ["## Small switches: the exact chain against the twin", "",
            "The Markov chain of the queue lengths at slot end (`switchq solve shared-buffer --load p`: P = A^N D, "
            "solved exactly, its own admission code) against the simulated loss under Bernoulli traffic. A point "
            "target: the interval must hold the exact value, with a half-width within 5e-4.", "",
            "| ports | cells | policy | traffic | states | exact loss | simulated loss | verdict |",
            "|---:|---:|---|---|---:|---:|---:|---|"]
    for (n, b, kw, load, tr), r in zip(cases, rows):
        policy = kw.get("policy", "dt")
        a = chain(n, b, 256, policy, kw.get("alpha"), load, threshold_cells=6 if policy == "st" else None,
                  pattern=tr.get("pattern", "uniform"), hotspot_fraction=tr.get("hotspot_fraction", 0.0))
        v = exactly(est(r, "loss_probability"), a.loss_probability, 5e-4,
                    claim=f"{n} ports, {b} cells, {policy}: exact loss", section="derived (solvers.shared_buffer_chain)")
        verdicts.append(v)
        traffic = f"{tr['pattern']} {tr['hotspot_fraction']:g}, " if tr else "uniform, "
        label = policy + (f" alpha {kw['alpha']:g}" if "alpha" in kw else "")
        body.append(f"| {n} | {b} | {label} | {traffic}load {load} | {a.states} | {a.loss_probability:.5f} | "
                    f"{fmt(v, 5)} | {cell(v)} |")
    return body + [""]


def _incast_section(seed, workers, store, progress, verdicts, plt, out):
    from switchq.solvers.shared_buffer import incast

    degrees, alphas, buffers = (2, 4, 8, 16, 32), (0.25, 1.0, 4.0), (500, 1000, 4000)
    combos = [(n, a, b) for b in buffers for a in alphas for n in degrees]
    params = []
    for n, a, b in combos:
        burst = overflowing_burst(b, n)          # overflows any queue of the memory: every burst drops
        params.append({"ports": 32, "buffer": b * CELL_BITS, "cell": CELL_BITS, "alpha": a, "incast": n,
                       "burst": burst * CELL_BITS})
    # Three bursts of the longest period (N x burst + 1: N = 2, B = 4000 is 16,009 slots), none in a warm-up.
    slots = 3 * max(p["incast"] * (p["burst"] // CELL_BITS) + 1 for p in params)
    rows = points("shared-buffer", params, slots=slots, warmup=0, replications=REPLICATIONS, seed=seed,
                  workers=workers, store=store, progress=progress)
    body = ["## Incast: the largest burst per sender a queue absorbs", "",
            "N inputs each send b cells, one a slot, to one empty queue of a 32-port switch; every burst is larger "
            "than the memory could hold, and the twin records the cells per sender admitted before the first "
            "drop. Analytic: c / (N - 1), c = alpha B / (1 + alpha) (`switchq solve shared-buffer --incast N`, "
            "derived in `solvers/shared_buffer.py`); the slotted switch absorbs the integer ceil(c/(N-1)) - 1, "
            "under a cell below, and is judged within half a cell of it (an answer off by one fails).", "",
            "| B (cells) | alpha | N | fluid c/(N-1) (cells/sender) | slotted | simulated | verdict |",
            "|---:|---:|---:|---:|---:|---:|---|"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for b in buffers:
        for a in alphas:
            xs, ys, fl = [], [], []
            for n in degrees:
                r = rows[combos.index((n, a, b))]
                f = incast(32, b, 256, "dt", a, n)
                v = within(est(r, "burst_absorbed"), float(f.burst_whole), 0.5,
                           claim=f"incast N = {n}, alpha {a:g}, B = {b}: ceil(c / (N - 1)) - 1",
                           section="derived (solvers.shared_buffer)")
                verdicts.append(v)
                body.append(f"| {b} | {a:g} | {n} | {f.burst_cells:.2f} | {f.burst_whole} | {fmt(v, 3)} | {cell(v)} |")
                xs.append(n), ys.append(v.value), fl.append(f.burst_cells)
            line, = ax.plot(xs, ys, "o", ms=4, label=f"B = {b}, alpha {a:g}")
            ax.plot(xs, fl, "-", color=line.get_color(), alpha=0.5)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("incast degree N (senders)")
    ax.set_ylabel("burst absorbed (cells per sender)")
    ax.set_title("Burst tolerance: simulated (dots), c/(N-1) (lines)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(out / "shared-buffer_incast.png", dpi=110)
    plt.close(fig)
    return body + ["", "![incast](shared-buffer_incast.png)", ""]


def _fabric_section(seed, workers, store, progress, verdicts, plt, out):
    """The network twin: an incast's pause spreading hop by hop, and the victims it stalls."""
    degrees, delay = (0, 2, 4, 8), 10
    base = {"leaves": 4, "spines": 2, "hosts": 16, "buffer_cells": B, "xoff": 20, "xon_offset": 5,
            "link_delay": delay, "victims": 2, "victim_load": 0.5}
    rows = points("leaf-spine", [{**base, "incast": n} for n in degrees], slots=40_000, warmup=4_000,
                  replications=REPLICATIONS, seed=seed, workers=workers, store=store, progress=progress)
    body = ["## A leaf-spine fabric: the pause spreading upstream, and its victims", "",
            "4 leaves of 4 hosts, 2 spines, each switch the lossless shared-memory switch above (1000 cells, XOFF "
            f"20 cells a port, XON 5 below, headroom 2 D - 1 = {2 * delay - 1} cells: every cell in flight on a "
            f"link of D = {delay} slots), PFC on every link (`switchq simulate leaf-spine`). N backlogged senders "
            "off leaf 0 send to host 0; 2 victim flows, each Bernoulli 0.5, run between two other leaves and "
            "share only the leaves' uplinks and the spines with the incast (ECMP: spine (src + dst) mod 2). Pause "
            "duty per hop, on the links the incast takes, back from host 0's leaf: 1, the spines' links down to "
            "leaf 0; 2, the leaves' uplinks; 3, the senders' host links; and the victims' host links. At N = 2 "
            "both senders hash to spine 0, whose link to leaf 0 carries what host 0's link does: the pause starts "
            "at the spine, a hop further up. Judged: the host link carries a cell a slot "
            "whenever N >= 2 backlogged senders share it and nothing is lost (tolerance 0.01); nothing is lost "
            "with the headroom sized (half a cell); the victims alone carry their load (0.01). The victims' loss "
            "is paired with N = 0 (the same seeds: the victims draw the same numbers). A hop the incast does not "
            "take at N = 0 is left blank (and drawn at 0).", "",
            "| N | host link (cells/slot) | victims (cells/slot/flow) | victims' loss against N = 0 | pause duty: "
            "hop 1 | hop 2 | hop 3 | victims' links | lost cells | verdicts |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    alone = rows[0]
    victims, hops = [], []
    for n, r in zip(degrees, rows):
        judged = [within(est(r, "lost_cells"), 0.0, 0.5, claim=f"leaf-spine {n}:1: nothing lost at the sized "
                         "headroom", section="derived (2 D - 1 cells in flight)")]
        if n >= 2:
            judged.append(within(est(r, "incast_throughput"), 1.0, 0.01, claim=f"leaf-spine {n}:1: the host link "
                                 "carries a cell a slot", section="derived (lossless, backlogged)"))
            loss = paired(alone, r, "victim_throughput")
            shown_loss = fmt(loss, 4, signed=True)
        else:
            judged.append(within(est(r, "victim_throughput"), 0.5, 0.01, claim="leaf-spine, no incast: victims "
                                 "carry their load", section="derived (nothing pauses them)"))
            shown_loss = ""
        verdicts.extend(judged)
        duties = [est(r, f"pause_duty_{tier}") if r.get(f"pause_duty_{tier}") is not None else None
                  for tier in ("spine", "uplink", "host", "victim")]
        body.append(f"| {n} | {fmt(est(r, 'incast_throughput'), 4)} | {fmt(est(r, 'victim_throughput'), 4)} | "
                    f"{shown_loss} | " + " | ".join("" if e is None else fmt(e, 3) for e in duties) +
                    f" | {r['lost_cells']:.0f} | {', '.join(cell(v) for v in judged)} |")
        victims.append(est(r, "victim_throughput"))
        hops.append([(0.0, 0.0) if e is None else (e.value, e.half_width) for e in duties])
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.errorbar(degrees, [e.value for e in victims], yerr=[e.half_width for e in victims], fmt="o-", capsize=3)
    ax1.axhline(0.5, color="grey", ls=":", label="offered")
    ax1.set_xlabel("incast degree N")
    ax1.set_ylabel("victim throughput (cells/slot/flow)")
    ax1.legend()
    ax1.grid(alpha=0.3)
    for k, name in enumerate(("hop 1: spine -> leaf 0", "hop 2: leaf uplinks", "hop 3: senders' links",
                              "victims' links")):
        ax2.errorbar(degrees, [h[k][0] for h in hops], yerr=[h[k][1] for h in hops], fmt="o-", capsize=3,
                     label=name)
    ax2.set_xlabel("incast degree N")
    ax2.set_ylabel("pause duty")
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3)
    fig.suptitle("Leaf-spine with PFC: victims' throughput and the pause at each hop")
    fig.tight_layout()
    fig.savefig(out / "shared-buffer_fabric.png", dpi=110)
    plt.close(fig)
    return body + ["", "![fabric](shared-buffer_fabric.png)", ""]


def build(out: Path, quick: bool = False, workers: int = 0, seed: int = 1, store=None) -> list[Path]:
    started = begin("shared-buffer", BUDGET)
    plt = pyplot()
    progress = sys.stderr.isatty()
    verdicts = []
    body = _overload_section(seed, workers, store, progress, verdicts, plt, out)
    body += _robustness_section(seed, workers, store, progress, verdicts)
    body += _priority_section(seed, workers, store, progress, verdicts)
    body += _chain_section(seed, workers, store, progress, verdicts)
    body += _incast_section(seed, workers, store, progress, verdicts, plt, out)
    body += pfc_section(seed, workers, store, progress, verdicts, plt, out)
    body += lossless_size_section(seed, workers, store, progress, verdicts)
    body += margins_section(seed, workers, store, progress, verdicts)
    body += _fabric_section(seed, workers, store, progress, verdicts, plt, out)
    body += [f"Every comparison: {tally(verdicts)}.", ""]
    body += readings.table(CHOICES, source="source")
    path = page(out, "shared-buffer", TITLE, INTRO, verdicts, body, started, quick=quick, seed=seed)
    return [path, *(out / f"shared-buffer_{name}.png" for name in ("overload", "incast", "pause", "fabric"))]
