"""``switchq bench``: speed figures measured on this machine, printed and optionally written.

Simulator figures are port-slots per second (ports x slots simulated, warm-up
included) on one core, after compilation, best of three runs. Analytic
figures are wall times. Nothing here is asserted in unit tests: speed is
reported, not tested against the clock.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

# Targets from the foundation issue and BookSim2's figure on the same question.
def _sfc(tau, q_r):
    from switchq.models import FlowControl

    return {"flow_control": FlowControl(tau, q_r, "sfc")}


CASES = [
    # (label, architecture, n_ports, traffic, switch options, target port-slots/s, booksim2)
    ("FIFO 32x32 saturated", "fifo", 32, {"load": 1.0}, {}, 2e7, 9e5),
    ("VOQ 32x32 iSLIP 1 iteration saturated", "voq", 32, {"load": 1.0}, {"matching": "islip", "iterations": 1},
     1e7, 1e5),
    ("VOQ 32x32 PIM 4 iterations saturated", "voq", 32, {"load": 1.0}, {"matching": "pim", "iterations": 4},
     None, None),
    ("FIFO 32x32 window 8 saturated", "fifo", 32, {"load": 1.0}, {"window": 8}, None, None),
    ("OQ 32x32 load 0.9", "oq", 32, {"load": 0.9}, {}, None, None),
    ("CICQ 16x16 SFC tau 32, uniform load 0.9", "cicq", 16, {"load": 0.9}, lambda: _sfc(32, 4), 5e6, None),
    ("CICQ 16x16 SFC tau 32, bursts of 10, load 0.5", "cicq", 16,
     {"load": 0.5, "arrivals": "onoff", "mean_burst": 10.0}, lambda: _sfc(32, 4), 5e6, None),
    ("Multicast 8x8 oq-crosspoint, fanout 4, load 0.2", "oq-crosspoint", 8, {"load": 0.2, "fanout": 4},
     {"crosspoint_cells": 4}, 5e6, None),
    ("Multicast 8x8 iq-split, fanout 4, load 0.2", "iq-split", 8, {"load": 0.2, "fanout": 4}, {}, None, None),
]


def _sim_rate(architecture, n, traffic, options, slots):
    import importlib

    from switchq.models import Switch, Traffic

    from switchq.validate.arch import ARCH_MODULES

    mod = importlib.import_module(f"switchq.validate.arch.{ARCH_MODULES[architecture]}")
    options = options() if callable(options) else options
    sw, tr = Switch(n, architecture, **options), Traffic(**traffic)
    mod.replicate(sw, tr, 200, 10, 1)  # compile or load from cache before timing
    best = float("inf")
    for rep in range(3):
        t0 = time.perf_counter()
        mod.replicate(sw, tr, slots, 0, rep + 1)
        best = min(best, time.perf_counter() - t0)
    return n * slots / best


# (label, switch ports, traffic, target node-slots/s): 256-node fat trees of paper 003 §3.
NETWORK_CASES = [
    ("Fat tree 256 nodes, 8-port switches (4 levels), uniform load 0.8", 8, {"load": 0.8}, 2e5),
    ("Fat tree 256 nodes, 32-port switches (2 levels), uniform load 0.8", 32, {"load": 0.8}, 2e5),
    ("Fat tree 256 nodes, 8-port switches, multicast fanout 8, load 0.1", 8,
     {"load": 0.1, "fanout": 8, "fanout_distribution": "uniform"}, None),
]


def _network_rate(ports, traffic, slots):
    """Node-slots per second (one slot = one 256 B packet time = 51.2 cycles of the 250 MHz ASIC)."""
    from switchq.models import Traffic
    from switchq.models.network import FatTreeNetwork
    from switchq.validate.network import replicate_network

    net, tr = FatTreeNetwork.for_nodes(256, ports), Traffic(**traffic)
    replicate_network(net, tr, 100, 10, 1)  # compile or load from cache before timing
    best = float("inf")
    for rep in range(3):
        t0 = time.perf_counter()
        replicate_network(net, tr, slots, 0, rep + 1)
        best = min(best, time.perf_counter() - t0)
    return 256 * slots / best


def _cli_wall(args, repeats=5):
    """Median wall time of a CLI call in a fresh interpreter, and whether it imported Numba."""
    cmd = [sys.executable, "-X", "importtime", "-m", "switchq"] + args
    times, numba = [], False
    for _ in range(repeats):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - t0)
        numba = numba or "numba" in p.stderr
    times.sort()
    return times[len(times) // 2], numba


def run_bench(out: Path | None = None, quick: bool = False, as_json: bool = False) -> dict:
    slots = 20_000 if quick else 200_000
    rows = []
    for label, arch, n, traffic, opts, target, booksim in CASES:
        rate = _sim_rate(arch, n, traffic, opts, slots)
        rows.append({"case": label, "value": rate, "unit": "port-slots/s", "target": target,
                     "booksim2": booksim, "met": None if target is None else rate >= target})
    for label, ports, traffic, target in NETWORK_CASES:
        rate = _network_rate(ports, traffic, slots // 20)
        rows.append({"case": label, "value": rate, "unit": "node-slots/s", "target": target,
                     "booksim2": None, "met": None if target is None else rate >= target})
    # A fresh interpreter, so no cache of an earlier solve helps.
    chain = float(subprocess.run(
        [sys.executable, "-c", "import time; t = time.perf_counter(); from switchq.solvers import hol; "
         "hol.saturation_throughput(16); print(time.perf_counter() - t)"],
        capture_output=True, text=True, check=True).stdout)
    rows.append({"case": "exact HOL chain N=16 (cold)", "value": chain, "unit": "s", "target": 5.0,
                 "booksim2": None, "met": chain < 5.0})
    for args in (["solve", "hol", "--ports", "8", "--json"],
                 ["size", "credit", "--link-rate", "10Gb/s", "--cable", "20m", "--cell", "256B", "--json"],
                 ["size", "sfc", "--ports", "64", "--rtt-slots", "64", "--json"],
                 ["size", "cicq", "--ports", "32", "--link-rate", "10Gb/s", "--rtt", "200ns", "--cell", "64B",
                  "--rtts", "4", "--json"]):
        wall, numba = _cli_wall(args)
        rows.append({"case": f"`switchq {' '.join(args[:-1])}` wall (median of 5)", "value": wall, "unit": "s",
                     "target": 0.5, "booksim2": None, "met": wall < 0.5 and not numba,
                     "numba_imported": numba})
    from .sweeps import sweep_bench

    rows += sweep_bench(quick)
    result = {"machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                         f"Python {platform.python_version()}",
              "slots_per_run": slots, "rows": rows}
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        _print(result)
    if out is not None:
        Path(out).write_text(_markdown(result))
    return result


def _value(r):
    return f"{r['value']:.3g}"


def _print(result):
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"switchq bench ({result['machine']})", header_style="bold")
    for c in ("case", "measured", "unit", "target", "BookSim2", "met"):
        t.add_column(c)
    for r in result["rows"]:
        t.add_row(r["case"], _value(r), r["unit"], "-" if r["target"] is None else f"{r['target']:.3g}",
                  "-" if r["booksim2"] is None else f"{r['booksim2']:.3g}",
                  "-" if r["met"] is None else ("[green]yes[/green]" if r["met"] else "[red]no[/red]"))
    Console().print(t)


def _markdown(result):
    lines = ["# Performance", "",
             f"Generated by `switchq bench --out reports/performance.md` on {result['machine']}. "
             f"Simulator rates are port-slots per second on one core after compilation, best of "
             f"three runs of {result['slots_per_run']} slots; BookSim2 figures are the foundation "
             "issue's, for the same question. Network rates are node-slots per second, one slot "
             "being one 256 B packet time (204.8 ns, 51.2 cycles of the 250 MHz ASIC).", "",
             "| case | measured | unit | target | BookSim2 | met |", "|---|---:|---|---:|---:|:---:|"]
    for r in result["rows"]:
        lines.append(f"| {r['case']} | {_value(r)} | {r['unit']} | "
                     f"{'—' if r['target'] is None else format(r['target'], '.3g')} | "
                     f"{'—' if r['booksim2'] is None else format(r['booksim2'], '.3g')} | "
                     f"{'—' if r['met'] is None else ('yes' if r['met'] else 'no')} |")
    return "\n".join(lines) + "\n"
