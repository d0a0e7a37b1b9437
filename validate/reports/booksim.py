"""Report ``booksim``: switchq's iq-router against BookSim2 itself, on BookSim2's own configuration files (issue 38).

For each file (``singleconfig``, ``fattree_config``, ``mesh88_lat``, and ``fattree_shared``, written here for
BookSim2's shared buffer policy), both simulators run the file unchanged but for
the load, over loads up to saturation, five seeds (BookSim2) and five replications (switchq) each. Agreement, as the
issue sets it: accepted rate when the 95 % interval of the difference of the two means lies within 3 % of
BookSim2's; average packet latency within 5 %, at loads up to 0.9 of saturation; saturation, the first load on a
0.02 grid where accepted is below 0.98 of offered (a BookSim2 run that ends unstable counts as saturated), within
one grid step. The two simulators draw different random numbers, so the difference is Welch's, not paired.

BookSim2 is run by :mod:`switchq.validate.reports.booksim_runs` (its binary from the ``BOOKSIM`` environment
variable); its runs are kept in ``reports/booksim-runs.jsonl``, committed, so the report is rebuilt from them where
no binary is.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from ..result import Estimate
from . import begin, est, page, points, pyplot
from .booksim_runs import run as booksim_run
from .claims import Exact, cell, fmt, tally, within

TITLE = "BookSim2's iq router: switchq against BookSim2 on BookSim2's own files"
SEEDS = 5
CYCLES = 20_000
EXAMPLES = Path(__file__).resolve().parents[2] / "switchq" / "examples" / "booksim"
RUNS = Path(__file__).resolve().parents[2] / "reports" / "booksim-runs.jsonl"
# (file, overrides for both, the rate's unit)
# mesh88_lat: its load in flits (its 20-flit packets at 0.005 packets are 0.1 flits), and BookSim2 measuring
# periods of 10,000 cycles instead of the file's 1,000 (three of those hold ~480 packets a node: its accepted rate
# would move by 5 % from seed to seed, more than the band).
FILES = (("singleconfig", {}, {}, "packets/node/cycle"),
         ("mesh88_lat", {"injection_rate_uses_flits": "1"}, {"sample_period": "10000"}, "flits/node/cycle"),
         ("fattree_config", {}, {}, "flits/node/cycle"),
         # BookSim2's shared buffer policy (a file written for this report): 16 flits a port shared by 4 VCs.
         ("fattree_shared", {}, {}, "flits/node/cycle"))
INTRO = (f"Each load: BookSim2 at commit 28f43299 on the file with `injection_rate` overridden, seeds 1 to {SEEDS}, "
         "its own warm-up and stopping rules; switchq `simulate iq-router --booksim-config FILE --injection-rate R`, "
         f"{SEEDS} replications of {CYCLES:,} cycles after a warm-up of 3,000. Agreement is judged on the difference "
         "of the two means (Welch's 95 % interval: the simulators' random numbers differ, so no pairing): accepted "
         "rate within 3 % of BookSim2's, packet latency within 5 % at loads up to 0.9 of BookSim2's saturation; "
         "saturation (the first load on a 0.02 grid where accepted < 0.98 offered, or BookSim2 ends unstable) "
         "within one grid step.")


def _welch(ours: Estimate, theirs) -> Estimate:
    """Our mean less BookSim2's with Welch's 95 % interval (our replications' spread from our interval)."""
    from scipy.stats import t as student

    x = np.asarray(theirs, dtype=float)
    n1, n2 = ours.n, x.size
    se1 = ours.half_width / student.ppf(0.975, n1 - 1)
    se2 = x.std(ddof=1) / math.sqrt(n2)
    se = math.sqrt(se1 ** 2 + se2 ** 2)
    df = se ** 4 / ((se1 ** 4) / (n1 - 1) + (se2 ** 4) / (n2 - 1)) if se > 0 else n1 + n2 - 2
    d = ours.value - float(x.mean())
    h = float(student.ppf(0.975, df)) * se
    return Estimate(d, d - h, d + h, n=min(n1, n2), method="welch", stable=ours.stable)


def _saturated_booksim(rows, load) -> bool:
    """Saturated: a run ended unstable, or the seeds' mean accepted rate is below 0.98 of the offered."""
    return any(not r["stable"] for r in rows) or float(np.mean([r["throughput"] for r in rows])) < 0.98 * load


def _booksim(binary, name, extra, load, cache):
    cfg = EXAMPLES / name
    both, only = extra
    return [booksim_run(binary, cfg, {**both, **only, "injection_rate": f"{load:.2f}"}, s, cache)
            for s in range(1, SEEDS + 1)]


def _ours(name, extra, loads, seed, workers, store, progress):
    params = [{"booksim_config": name, "injection_rate": load,
               **({"booksim_set": "; ".join(f"{k}={v}" for k, v in extra.items())} if extra else {})}
              for load in loads]
    return points("iq-router", params, slots=CYCLES, warmup=3000, replications=SEEDS, seed=seed, workers=workers,
                  store=store, progress=progress)


def _loads(binary, name, extra, cache):
    """BookSim2's loads: a 0.05 grid up to its first saturated load, then the 0.02 grid from the last load it
    carried; its saturation, the first saturated load on the 0.02 grid."""
    coarse, last_ok, bad = [], 0.0, None
    for k in range(1, 20):
        load = round(0.05 * k, 2)
        coarse.append(load)
        if _saturated_booksim(_booksim(binary, name, extra, load, cache), load):
            bad = load
            break
        last_ok = load
    fine, sat = [], None
    g = 0.02 * (int(round(last_ok / 0.02, 6)) + 1)
    while bad is not None and g <= bad + 0.02 + 1e-9:      # the grid point past the coarse one that saturated
        load = round(g, 2)
        fine.append(load)
        if _saturated_booksim(_booksim(binary, name, extra, load, cache), load):
            sat = load
            break
        g += 0.02
    return coarse, fine, sat


def _saturated_ours(r, load) -> bool:
    return r["throughput"] < 0.98 * load or bool(r.get("unstable"))


def _saturation(ours, loads, name, both, seed, workers, store, progress):
    """switchq's first saturated load among those run (ascending), or further up the 0.02 grid (five more points
    at most) where it still carries all of BookSim2's saturated load; None if it never saturates there."""
    on_grid = [g for g in loads if abs(g / 0.02 - round(g / 0.02)) < 1e-9]     # 0.05's odd multiples are not
    first = next((g for g in on_grid if _saturated_ours(ours[g], g)), None)
    if first is not None:
        return first
    g = round(max(loads) + 0.02, 2)
    for _ in range(5):
        r = _ours(name, both, [g], seed, workers, store, progress)[0]
        ours[g] = r
        if _saturated_ours(r, g):
            return g
        g = round(g + 0.02, 2)
    return None


def _section(binary, name, extra, unit, seed, workers, store, progress, cache, verdicts, plt, out):
    coarse, fine, sat_b = _loads(binary, name, extra, cache)
    loads = sorted(set(coarse) | set(fine))
    ours = dict(zip(loads, _ours(name, extra[0], loads, seed, workers, store, progress)))
    sat_s = _saturation(ours, loads, name, extra[0], seed, workers, store, progress)
    body = [f"## `{name}`", "", f"Load in {unit}; BookSim2 saturates at {sat_b} on the 0.02 grid, switchq at {sat_s} "
            "(its first saturated load of the 0.02 grid among those run).",
            "", "| load | BookSim2 accepted | switchq accepted | difference | verdict | BookSim2 latency (cycles) | "
            "switchq latency | difference | verdict |", "|---:|---:|---:|---:|---|---:|---:|---:|---|"]
    xs, lat_b, lat_s = [], [], []
    for load in coarse:
        theirs = _booksim(binary, name, extra, load, cache)
        r = ours[load]
        if _saturated_booksim(theirs, load):
            body.append(f"| {load:.2f} | saturated | {r['throughput']:.4f} | | shown | | {r['packet_latency']:.2f} "
                        "| | shown |")
            continue
        acc_b = [x["throughput"] for x in theirs]
        d_acc = _welch(est(r, "throughput"), acc_b)
        v_acc = within(d_acc, 0.0, 0.03 * float(np.mean(acc_b)), claim=f"{name} at {load}: accepted rate as "
                       "BookSim2's within 3 %", section="issue 38: agreement")
        verdicts.append(v_acc)
        lat = [x["packet_latency"] for x in theirs]
        judged = sat_b is None or load <= 0.9 * sat_b
        if judged:
            d_lat = _welch(est(r, "packet_latency"), lat)
            v_lat = within(d_lat, 0.0, 0.05 * float(np.mean(lat)), claim=f"{name} at {load}: packet latency as "
                           "BookSim2's within 5 %", section="issue 38: agreement")
            verdicts.append(v_lat)
            shown = f"{fmt(v_lat, 3, signed=True)} | {cell(v_lat)}"
        else:
            shown = f"{r['packet_latency'] - float(np.mean(lat)):+.3f} | shown (above 0.9 of saturation)"
        body.append(f"| {load:.2f} | {np.mean(acc_b):.4f} | {r['throughput']:.4f} | {fmt(v_acc, 4, signed=True)} | "
                    f"{cell(v_acc)} | {np.mean(lat):.3f} | {r['packet_latency']:.3f} | {shown} |")
        xs.append(load), lat_b.append(float(np.mean(lat))), lat_s.append(r["packet_latency"])
    if sat_b is not None:
        # switchq never saturating within five grid steps past BookSim2's is judged as that far off (a defect).
        gap = (sat_s if sat_s is not None else max(ours) + 0.02) - sat_b
        v = within(Exact(gap), 0.0, 0.02 + 1e-9, claim=f"{name}: saturation within one 0.02 step",
                   section="issue 38: agreement")
        verdicts.append(v)
        shown = f"{sat_s:.2f}" if sat_s is not None else f"none up to {max(ours):.2f}"
        body += ["", f"Saturation: BookSim2 {sat_b:.2f}, switchq {shown}: {cell(v)}."]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(xs, lat_b, "s-", label="BookSim2 (mean of 5 seeds)")
    ax.plot(xs, lat_s, "o--", label="switchq (mean of 5 replications)")
    ax.set_xlabel(f"offered load ({unit})")
    ax.set_ylabel("packet latency (cycles)")
    ax.set_title(name)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / f"booksim_{name}.png", dpi=110)
    plt.close(fig)
    return body + ["", f"![{name}](booksim_{name}.png)", ""]


def build(out: Path, quick: bool = False, workers: int = 0, seed: int = 1, store=None) -> list[Path]:
    binary = os.environ.get("BOOKSIM")
    started = begin("booksim", 4)
    plt = pyplot()
    cache = RUNS
    verdicts, body = [], []
    for name, both, only, unit in FILES[:1] if quick else FILES:
        body += _section(binary, name, (both, only), unit, seed, workers, store, False, cache, verdicts, plt, out)
    body += [f"Every comparison: {tally(verdicts)}.", ""]
    path = page(out, "booksim", TITLE, INTRO, verdicts, body, started, quick=quick, seed=seed)
    return [path, *(out / f"booksim_{name}.png" for name, *_ in (FILES[:1] if quick else FILES))]
