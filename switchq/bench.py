"""``switchq bench``: speed figures measured on this machine, printed and optionally written.

The simulator cases are the ones the architectures declare
(:class:`switchq.declaration.BenchCase`), with their targets and BookSim2's
figure on the same question where there is one. Simulator figures are
port-slots (networks: node-slots) per second, ports x slots simulated, on
one core, after compilation, best of three runs taken in rounds over all the
cases. Analytic figures are wall times. Nothing here is asserted in unit
tests: speed is reported, not tested against the clock.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path


def _cases() -> list:
    """Every declared benchmark case: (declaration, BenchCase), in listing order."""
    from .registry import declarations

    return [(d, case) for d in declarations().values() for case in d.bench]


def _prepared(declaration, case):
    """A case's kernel, system and workload, compiled (or loaded from the cache) by a short run."""
    import importlib

    from .validate import kernel as K

    system, workload = declaration.build({**declaration.defaults(), **case.params})
    declaration.check(system, workload)
    kernel = importlib.import_module(declaration.kernel)
    kernel.replicate(system, workload, K.Run(slots=100, warmup=10, drain=0, seed=1))
    return kernel, system, workload


def _rates(cases, slots: int, rounds: int = 3) -> list:
    """Per case, its size (ports, nodes) x time steps (slots, cycles) per second of one core, the best of
    ``rounds`` runs; for a case of set simulated length, the best wall time of a run. The runs go in rounds
    over all the cases, so a slow minute of a shared machine costs a case one run, not all of them."""
    from .validate import kernel as K

    ready = [_prepared(d, case) for d, case in cases]
    best = [float("inf")] * len(cases)
    for rnd in range(rounds):
        for k, ((_, case), (kernel, system, workload)) in enumerate(zip(cases, ready)):
            t0 = time.perf_counter()
            kernel.replicate(system, workload, K.Run(slots=int(slots * case.scale), warmup=0, drain=0, seed=rnd + 1))
            best[k] = min(best[k], time.perf_counter() - t0)
    rates = []
    for (declaration, case), wall in zip(cases, best):
        if declaration.slotted:
            size = {**declaration.defaults(), **case.params}[declaration.size]
            rates.append(size * int(slots * case.scale) / wall)
        else:
            rates.append(wall)    # a run of set simulated length: its wall time
    return rates


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
    cases = _cases()
    for (declaration, case), rate in zip(cases, _rates(cases, slots)):
        rows.append({"case": case.label, "value": rate, "unit": declaration.bench_unit(), "target": case.target,
                     "booksim2": case.booksim2,
                     "met": None if case.target is None else (rate >= case.target if declaration.slotted else
                                                              rate <= case.target)})
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
             f"three runs of {result['slots_per_run']} slots, taken in three rounds over all the cases (a "
             "slow minute of a shared machine costs a case one run); BookSim2 figures are the foundation "
             "issue's, for the same question. Network rates are node-slots per second, one slot "
             "being one 256 B packet time (204.8 ns, 51.2 cycles of the 250 MHz ASIC).", "",
             "| case | measured | unit | target | BookSim2 | met |", "|---|---:|---|---:|---:|:---:|"]
    for r in result["rows"]:
        lines.append(f"| {r['case']} | {_value(r)} | {r['unit']} | "
                     f"{'—' if r['target'] is None else format(r['target'], '.3g')} | "
                     f"{'—' if r['booksim2'] is None else format(r['booksim2'], '.3g')} | "
                     f"{'—' if r['met'] is None else ('yes' if r['met'] else 'no')} |")
    return "\n".join(lines) + "\n"
