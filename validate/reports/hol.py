"""Report ``hol``: HOL blocking, window scheduling and input vs output queuing delay.

Reproduces Karol, Hluchyj & Morgan 1987 Table I (paper 000 §2.1, §5.2.1),
paper 001 Fig. 1 (saturation throughput vs N for windows 1..64) and the
mean-delay comparison of input and output queuing. Every verdict is the
engine's (:mod:`switchq.validate.verdict`): exact values as ``Exact``,
simulated ones as estimates from at least 5 replications, classed from the
evidence passed (the exact chain as the derivation behind Table I's rows, the
other window rule as a reading), never by this module.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from switchq.validate.harness import RunSettings

from . import begin, est, page, points, readings
from .claims import AGREE, Derivation, Exact, agreeing, at_least, cell, fmt, listed, printed, tally, within
# The sentences a verdict quotes live with the readings table that cites them.
from .hol_choices import CHOICES, KAROL_SETUP, MATCHES_HLUCHYJ_KAROL, WINDOW_FLOORS

# Karol, Hluchyj & Morgan 1987, Table I (saturation throughput, uniform traffic).
# As printed (four decimals): a value agrees when it rounds to the printed one (claims.printed).
KAROL_TABLE_I = {1: "1.0000", 2: "0.7500", 3: "0.6825", 4: "0.6553", 5: "0.6399", 6: "0.6302", 7: "0.6234",
                 8: "0.6184"}
KAROL_LIMIT = "0.5858"

WINDOWS = (1, 2, 4, 8, 16, 32, 64)
# Paper 001 §4, Fig. 1: "W = 16 ... above 0.90 and W = 64 above 0.98 for every N".
PAPER_001_WINDOW_FLOORS = {16: 0.90, 64: 0.98}
WINDOW_PORTS = (2, 4, 8, 16, 32, 64, 128)
# The simulator against an exact chain (not a paper's claim): agree when the 95 % interval reaches the exact
# value within these (throughput in cells/slot; mean wait relative), so that a 95 % interval's one miss in
# twenty is not read as a defect, while any error larger than them is.
SIM_THROUGHPUT_TOL = 0.001
SIM_WAIT_REL_TOL = 0.01
REPLICATIONS = 8
WINDOW_REPLICATIONS = 5
# Replications the engine may take a point to before calling its interval inconclusive (x its own).
BUDGET = 4
RULE = ("No verdict stands on fewer than 5 replications or on point values (an exact value is judged as "
        "exact, a simulated one by its 95 % interval); comparisons are paired. A simulated figure agrees when "
        "its whole interval lies inside the band (or on the claim's side of a bound) from a run shown stable, a "
        "saturation throughput excepted (its run is overloaded by design); it is inconclusive when the interval "
        "reaches past the band's edge after replications were added up to four times the point's own; a "
        "disagreement is not reproducible only where a derivation from the paper's own set-up contradicts the "
        "printed number, an ambiguity only where another reading that was run agrees and the paper allows it, "
        "and a defect otherwise.")


def _sim(model, params, settings, workers, store, progress):
    """Rows of ``model`` at ``params`` with the run settings of ``settings`` (a RunSettings)."""
    rows = points(model, params, slots=settings.slots, warmup=settings.warmup_slots,
                  replications=settings.replications, seed=settings.seed, workers=workers, store=store,
                  progress=progress)
    for r in rows:       # what est() counts: the replications each row was run with
        r.setdefault("replications", settings.replications)
    return rows


def _cell(row, name, digits=4):
    """``mean ± half-width`` of a row's latency or wait, or ``unstable`` with its backlog figures (a queue that
    grows has no mean wait)."""
    if row.get("unstable"):
        return (f"unstable (backlog +{row.get('backlog_growth', float('nan')):.0f}, "
                f"{row.get('backlog_growth_allowed', float('nan')):.0f} allowed)")
    e = est(row, name)
    return fmt(e, digits)


def _judged(row, v) -> str:
    """The interval a verdict was judged on (and its replications), flagged when its run was unstable."""
    shown = f"{fmt(v, 4)} ({v.n})"
    if row.get("unstable"):
        shown = (f"unstable (backlog +{row.get('backlog_growth', float('nan')):.0f}, "
                 f"{row.get('backlog_growth_allowed', float('nan')):.0f} allowed): {shown}")
    return shown


def build(out: Path, quick: bool = False, workers: int = 0, seed: int = 1, store=None) -> list[Path]:
    started = begin("hol", BUDGET)
    scale = 0.1 if quick else 1.0
    progress = sys.stderr.isatty()
    verdicts = []
    body = _table_i(scale, seed, workers, store, progress, verdicts)
    body += _windows(out, quick, scale, seed, workers, store, progress, verdicts)
    body += _delay(out, scale, seed, workers, store, progress, verdicts)
    # The readings table (issue 36, item 1) closes the page, before the build time: its sources are Karol et al.
    # and the papers quoting them, not one of the five papers alone.
    body += readings.table(CHOICES, source="source")
    path = page(out, "hol", "HOL blocking, window scheduling and input vs output queuing",
                "Simulated figures are means over independent replications with 95 % Student-t intervals "
                "(±half-width); warm-up discarded. Saturation is simulated at load 1.0 with unbounded input queues. "
                + RULE, verdicts, body, started, quick=quick, seed=seed)
    return [path, out / "hol_window.png", out / "hol_delay.png"]


def _table_i(scale, seed, workers, store, progress, verdicts) -> list:
    from switchq.solvers import hol

    sat = RunSettings(slots=int(50_000 * scale), replications=REPLICATIONS, seed=seed, workers=workers)
    lines = ["## Saturation throughput of FIFO input queuing (Karol et al. 1987, Table I)", "",
             f"Simulation: {sat.slots} measured slots after {sat.warmup_slots} warm-up, "
             f"{sat.replications} replications per row.", "",
             "Verdicts: the exact value against the published one, agreeing when it rounds to it (half a unit "
             "in the fourth decimal), with the difference in units of that decimal (where it does not, the exact "
             "chain of the set-up Table I states is the derivation that contradicts the printed digit); the "
             f"simulation against the exact value (`agree` when its 95 % interval lies within {SIM_THROUGHPUT_TOL} "
             "of it; the run is saturated by design).", "",
             "| N | exact (rational) | exact / method | published (Table I) | exact − published (1e-4) | "
             "rounds to it | simulated ± 95 % CI (replications) | simulated vs exact |",
             "|---:|:---|---:|---:|---:|---|---:|---|"]
    table_ns = list(range(1, 9)) + [16, 32, 64]
    table = _sim("fifo", [{"ports": n, "load": 1.0} for n in table_ns], sat, workers, store, progress)
    printed_v, sim_v, off = [], [], []
    for n, r in zip(table_ns, table):
        a = hol.saturation_throughput(n)
        x = a.saturation_throughput
        pub, diff, shown = "—", "—", "—"
        if n in KAROL_TABLE_I:
            pub = KAROL_TABLE_I[n]
            units = (x - float(pub)) * 1e4
            diff = f"{units:+.2f}"
            pv = within(Exact(x, a.method), *printed(pub), claim=f"Karol et al. Table I, N = {n}",
                        section="Karol et al. 1987, Table I",
                        derivation=Derivation(hol.saturation_throughput, KAROL_SETUP, (n,)))
            printed_v.append(pv)
            shown = cell(pv)
            if pv != AGREE:
                off.append(f"N = {n} ({x:.5f} against {pub})")
        # Offered 1.0, the input queues grow (the stability test says so): the throughput is the saturation
        # throughput, which is what is judged.
        e = est(r, "throughput")
        sv = within(e, x, SIM_THROUGHPUT_TOL, claim=f"FIFO saturation, N = {n}: simulated against the exact chain",
                    section="Karol et al. 1987, Table I", saturated=True)
        sim_v.append(sv)
        lines.append(f"| {n} | {a.exact or '—'} | {x:.4f} ({a.method}) | {pub} | {diff} | {shown} | "
                     f"{fmt(sv, 4)} ({sv.n}) | {cell(sv)} |")
    lim = hol.saturation_limit()
    lv = within(Exact(lim.saturation_throughput, "closed form 2 - sqrt(2)"), *printed(KAROL_LIMIT),
                claim="Karol et al. Table I, N = infinity", section="Karol et al. 1987, Table I")
    printed_v.append(lv)
    verdicts += printed_v + sim_v
    kinds = {str(v) for v in printed_v if v != AGREE}
    lines += [f"| ∞ | {lim.exact} | {lim.saturation_throughput:.4f} (closed form) | {KAROL_LIMIT} | "
              f"{(lim.saturation_throughput - float(KAROL_LIMIT)) * 1e4:+.2f} | {cell(lv)} | — | — |", "",
              f"The exact values round to Karol et al.'s at {tally(printed_v)} rows"
              + (f"; not at {listed(off)} (class: {listed(sorted(kinds))}: the exact rationals of the set-up "
                 "Table I states need no iteration, and Table I is off by under one unit of its last digit)"
                 if off else "")
              + f". The simulation agrees with the exact value at {tally(sim_v)} rows.", ""]
    return lines


def _windows(out, quick, scale, seed, workers, store, progress, verdicts) -> list:
    import matplotlib.pyplot as plt

    from switchq.solvers import window

    win_settings = RunSettings(slots=int(20_000 * scale), replications=WINDOW_REPLICATIONS, seed=seed,
                               workers=workers)
    lines = ["## Saturation throughput vs switch size for window sizes 1..64 (paper 001 Fig. 1)", "",
             f"Simulation: {win_settings.slots} measured slots after {win_settings.warmup_slots} warm-up, "
             f"{win_settings.replications} replications per point. Two matching rules for the windows:", "",
             "- **random** (paper 001 §2.1, central control, the rule behind its Fig. 1; the default reading): "
             "outputs in random order each pick one packet at random among all packets for them in the windows "
             "of free inputs;",
             "- **rounds** (Hluchyj & Karol 1988, paper 001's [7]; another reading of \"window\", not counted in "
             "the headline): in round k every free input offers its k-th cell and each free output accepts one "
             "offer at random. Paper 001 §4 says of Fig. 1: \"Our simulation results match the analytical and "
             "simulation results in [7].\"", "",
             "Exact values from the lumped window chain, where it is tractable, are in brackets.", ""]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    sims, floor_v = {}, {}
    # The other reading (rounds) runs and is judged first: a default verdict is judged beside it.
    for ax, policy in ((axes[1], "rounds"), (axes[0], "random")):
        grid = [(w, n) for w in WINDOWS for n in WINDOW_PORTS]
        rows = _sim("fifo", [{"ports": n, "load": 1.0, "window": w, "window_policy": policy} for w, n in grid],
                    win_settings, workers, store, progress)
        sims[policy] = {(w, n): est(r, "throughput") for (w, n), r in zip(grid, rows)}
        _window_curves(ax, sims[policy], policy)
        # Paper 001 §4: "over 90 % for all switch sizes" (W = 16), "over 98 %" (W = 64): one verdict per N.
        for w, floor in PAPER_001_WINDOW_FLOORS.items():
            floor_v[policy, w] = [
                at_least(sims[policy][w, n], floor, claim=f"paper 001 Fig. 1: W = {w} above {floor} at N = {n}",
                         section="paper 001 §4, Fig. 1", saturated=True, quote=WINDOW_FLOORS,
                         reading="default" if policy == "random" else policy,
                         readings=(floor_v["rounds", w][k],) if policy == "random" else (),
                         allows=MATCHES_HLUCHYJ_KAROL if policy == "random" else None)
                for k, n in enumerate(WINDOW_PORTS)]
    for policy in ("random", "rounds"):
        lines += _window_table(sims[policy], policy, window)
    axes[0].set_ylabel("saturation throughput (cells/slot/output)")
    axes[1].legend(fontsize=8, ncol=2, loc="lower left")
    fig.suptitle("FIFO input queuing with window scheduling (simulated, 95 % CI bands)")
    fig.tight_layout()
    fig.savefig(out / "hol_window.png", dpi=120)
    plt.close(fig)
    verdicts += floor_v["random", 16] + floor_v["random", 64]
    lines += ["Paper 001 §4, Fig. 1: \"with a window size of 16, the throughput is over 90% for all switch "
              "sizes, while the throughput is over 98% with a window size of 64\" (one verdict per N: `agree` "
              "when the whole interval lies at the floor or above; the runs are saturated by design). The default "
              "reading is the paper's central-control rule (random); the rounds rule is judged beside it and "
              "not counted in the headline.", "",
              "| window | N | floor | random (judged, replications) | verdict | rounds (judged, replications) | "
              "verdict |", "|---:|---:|---:|---:|---|---:|---|"]
    for w, floor in PAPER_001_WINDOW_FLOORS.items():
        for n, v, r in zip(WINDOW_PORTS, floor_v["random", w], floor_v["rounds", w]):
            lines.append(f"| {w} | {n} | {floor} | {fmt(v, 4)} ({v.n}) | {cell(v)} | {fmt(r, 4)} ({r.n}) | "
                         f"{cell(r)} |")
    lines += ["", "; ".join(f"W = {w} above {floor}: random rule at {tally(floor_v['random', w])} switch sizes, "
                            f"rounds rule at {agreeing(floor_v['rounds', w])} of {len(floor_v['rounds', w])}"
                            for w, floor in PAPER_001_WINDOW_FLOORS.items()) + ".", "",
              "![saturation vs N](hol_window.png)", ""]
    return lines


def _window_curves(ax, sims, policy) -> None:
    """One rule's saturation curves against N, with their 95 % bands."""
    for w in WINDOWS:
        y = np.array([sims[w, n].value for n in WINDOW_PORTS])
        lo = np.array([sims[w, n].low for n in WINDOW_PORTS])
        hi = np.array([sims[w, n].high for n in WINDOW_PORTS])
        ax.plot(WINDOW_PORTS, y, marker="o", ms=3, label=f"W = {w}")
        ax.fill_between(WINDOW_PORTS, lo, hi, alpha=0.25)
    ax.axhline(2 - np.sqrt(2), color="grey", ls="--", lw=0.8, label="2 − √2")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("switch size N (ports)")
    ax.set_title(f"window rule: {policy}")
    ax.grid(alpha=0.3)


def _window_table(sims, policy, window) -> list:
    """One rule's simulated saturation throughputs, window by N, exact values in brackets where tractable."""
    lines = [f"### Rule: {policy}", "",
             "| window | " + " | ".join(f"N={n}" for n in WINDOW_PORTS) + " |",
             "|---:|" + "---:|" * len(WINDOW_PORTS)]
    for w in WINDOWS:
        cells = []
        for n in WINDOW_PORTS:
            c = fmt(sims[w, n], 4)
            if window.exact_is_tractable(n, w, policy):
                c += f" [{window.saturation_throughput(n, w, policy).saturation_throughput:.4f}]"
            cells.append(c)
        lines.append(f"| {w} | " + " | ".join(cells) + " |")
    return lines + ["", "Smallest over N: " + ", ".join(f"W={w}: {min(sims[w, n].value for n in WINDOW_PORTS):.4f}"
                                                      for w in WINDOWS) + ".", ""]


def _delay(out, scale, seed, workers, store, progress, verdicts) -> list:
    import matplotlib.pyplot as plt

    from switchq.solvers import iq, oq

    n = 32
    delay_settings = RunSettings(slots=int(50_000 * scale), replications=REPLICATIONS, seed=seed, workers=workers)
    iq_loads = np.round(np.arange(0.05, 0.56, 0.05), 2)
    oq_loads = np.round(np.arange(0.05, 0.96, 0.05), 2)
    iq_sim = _sim("fifo", [{"ports": n, "load": float(p)} for p in iq_loads], delay_settings, workers, store,
                  progress)
    oq_sim = _sim("oq", [{"ports": n, "load": float(p)} for p in oq_loads], delay_settings, workers, store, progress)
    iq_an = [iq.mean_wait(p).mean_wait for p in iq_loads]
    oq_an = [oq.mean_wait(n, p).mean_wait for p in oq_loads]
    lines = [f"## Mean wait vs load: input vs output queuing (N = {n}, uniform Bernoulli)", "",
             f"Simulation: {delay_settings.slots} measured slots after {delay_settings.warmup_slots} "
             f"warm-up, {delay_settings.replications} replications per point. Analytic: output queuing "
             "(N−1)/N · p / (2(1−p)) (Karol et al. 1987); input queuing the N → ∞ approximation of "
             "Karol et al. 1987 (see `switchq.solvers.iq`).", "",
             "The output-queuing formula is exact for any N: the simulation agrees when its whole 95 % interval lies "
             f"within {SIM_WAIT_REL_TOL:.0%} of its value, from a run shown stable; the input-queuing one is a "
             "limit for large N, so its column gives the ratio simulated / analytic and no verdict. A point the "
             "stability test flags prints `unstable` and its backlog growth beside the interval it was judged on.",
             "",
             "| load | input queuing: analytic (N→∞) | input queuing: simulated | simulated / analytic | output "
             "queuing: analytic | output queuing: simulated | verdict |",
             "|---:|---:|---:|---:|---:|---:|---|"]
    iq_by_load = {float(p): (a, r) for p, a, r in zip(iq_loads, iq_an, iq_sim)}
    oq_v, flagged = [], []
    for p, a, r in zip(oq_loads, oq_an, oq_sim):
        ia, ir = iq_by_load.get(float(p), (None, None))
        # Every point is judged: an unstable run cannot agree with a finite mean wait (the engine's rule).
        v = within(est(r, "mean_wait"), a, SIM_WAIT_REL_TOL * a, section="Karol et al. 1987",
                   claim=f"output queuing mean wait, N = {n}, load {p:.2f}: simulated against the exact formula")
        oq_v.append(v)
        if r.get("unstable"):
            flagged.append(f"{p:.2f}")
        iq_cells = "— | — | —"
        if ia is not None:
            ratio = "—" if ir.get("unstable") else f"{est(ir, 'mean_wait').value / ia:.3f}"
            iq_cells = f"{ia:.4f} | {_cell(ir, 'mean_wait')} | {ratio}"
        lines.append(f"| {p:.2f} | {iq_cells} | {a:.4f} | {_judged(r, v)} | {cell(v)} |")
    verdicts += oq_v
    lines += ["", f"Output queuing: the simulation agrees with the exact mean wait at {tally(oq_v)} loads"
              + (f"; flagged unstable at {listed(flagged)}" if flagged else "") + ".", "",
              "![delay vs load](hol_delay.png)", ""]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    fine_iq = np.linspace(0.01, 0.575, 120)
    fine_oq = np.linspace(0.01, 0.95, 120)
    ax.plot(fine_iq, [iq.mean_wait(p).mean_wait for p in fine_iq], "b-", label="input queuing, analytic (N→∞)")
    for loads, sims, style, label in ((iq_loads, iq_sim, "bo", f"input queuing, simulated N={n}"),
                                      (oq_loads, oq_sim, "rs", f"output queuing, simulated N={n}")):
        kept = [(x, est(r, "mean_wait")) for x, r in zip(loads, sims) if not r.get("unstable")]
        ax.errorbar([x for x, _ in kept], [e.value for _, e in kept], yerr=[e.half_width for _, e in kept],
                    fmt=style, ms=4, capsize=2, label=label)
    ax.plot(fine_oq, [oq.mean_wait(n, p).mean_wait for p in fine_oq], "r-", label=f"output queuing, analytic N={n}")
    ax.axvline(2 - np.sqrt(2), color="grey", ls="--", lw=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("offered load p (cells/slot/input)")
    ax.set_ylabel("mean wait (slots)")
    ax.set_title("Input vs output queuing: mean wait (stable points)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(out / "hol_delay.png", dpi=120)
    plt.close(fig)
    return lines
