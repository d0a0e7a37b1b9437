"""``switchq bench``: speed figures measured on this machine, printed and optionally written.

The simulator cases are the ones the architectures declare
(:class:`switchq.declaration.BenchCase`), with their targets and BookSim2's
figure on the same question where there is one. Simulator figures are
port-slots (networks: node-slots) per second, ports x slots simulated, on
one core, after compilation, best of three runs taken in rounds over all the
cases. Analytic figures are wall times. Whole processes are timed as a user
runs them: a simulated question of default length beside its kernel's
in-process rate, the issue's start-up case and the smallest run (start-up),
each the median of five with the kernel's cache warm; ``--cold`` compiles
each kernel into an empty cache in a fresh process; ``--booksim PATH`` asks
BookSim2 and switchq the same fat-tree question (:mod:`.bench_booksim`).
Nothing here is asserted in unit tests: speed is reported, not tested
against the clock.
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


def _process_wall(args, repeats=5):
    """Median wall time of a whole ``switchq`` process (no import tracing), after one untimed call that loads
    (or compiles) its kernel into Numba's cache; and the last call's JSON answer."""
    cmd = [sys.executable, "-m", "switchq"] + args
    subprocess.run(cmd, capture_output=True, check=True)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2], json.loads(p.stdout)


# One simulated question as a user asks it (default run length), the start-up case and the smallest run.
_QUESTION = ["simulate", "bmin", "--nodes", "16", "--load", "0.8", "-r", "2", "--workers", "1", "--json"]
_STARTUP_CASE = _QUESTION[:-1] + ["--cycles", "200", "--json"]
_SMALLEST = _QUESTION[:-1] + ["--cycles", "100", "--warmup", "0", "--json"]


def _question_rows(quick: bool) -> list:
    """Whole-process wall of a realistic question beside the kernel's in-process rate on it; the issue's start-up
    case (target 0.8 s); the start-up, the smallest run's wall."""
    import importlib

    from .registry import declarations
    from .validate import kernel as K

    repeats = 3 if quick else 5
    wall, answer = _process_wall(_QUESTION, repeats)
    nodes, cycles, reps = answer["nodes"], answer["slots"] + answer["warmup_slots"], answer["replications"]
    whole = nodes * cycles * reps / wall
    d = declarations()[_QUESTION[1]]
    params = {**d.defaults(), **{k: d.param(k).parse(v) for k, v in {"nodes": "16", "load": "0.8"}.items()}}
    system, workload = d.build(params)
    kernel = importlib.import_module(d.kernel)
    kernel.replicate(system, workload, K.Run(slots=200, warmup=20, drain=0, seed=1))
    best = float("inf")
    for seed in range(1, 4):
        t0 = time.perf_counter()
        kernel.replicate(system, workload, K.Run(slots=answer["slots"], warmup=answer["warmup_slots"], drain=0,
                                                  seed=seed))
        best = min(best, time.perf_counter() - t0)
    inner = nodes * cycles / best
    name = f"`switchq {' '.join(_QUESTION[:-1])}`"
    rows = [{"case": f"{name} ({cycles} cycles x {reps}), whole process, median of {repeats}", "value": whole,
             "unit": "node-cycles/s", "target": None, "booksim2": None, "met": None, "wall": wall,
             "kernel_rate": inner},
            {"case": "the same question in-process, kernel only (one replication, best of 3)", "value": inner,
             "unit": "node-cycles/s", "target": None, "booksim2": None, "met": None, "whole_process_share":
             whole / inner}]
    for args, label, target in ((_STARTUP_CASE, "wall", 0.8), (_SMALLEST, "wall, smallest run: start-up", None)):
        wall, _ = _process_wall(args, repeats)
        rows.append({"case": f"`switchq {' '.join(args[:-1])}` {label} (median of {repeats}, cache warm)",
                     "value": wall, "unit": "s", "target": target, "booksim2": None,
                     "met": None if target is None else wall <= target})
    return rows


_COMPILE = "import sys; from switchq.warm import compile_one; print(compile_one(sys.argv[1]))"


def _cold_rows(progress=sys.stderr) -> list:
    """Per simulated architecture, its kernel compiled from nothing: ``switchq.warm.compile_one`` in a fresh
    process whose Numba cache is a new empty directory (the real cache is neither read nor written); the
    seconds ``compile_one`` reports (build, compile, a 200-slot run) and the process's wall. One at a time."""
    import tempfile

    from .bench_booksim import _children_cpu
    from .registry import declarations

    rows, total, total_cpu = [], 0.0, 0.0
    for d in (d for d in declarations().values() if d.simulated):
        with tempfile.TemporaryDirectory() as cache:
            c0, t0 = _children_cpu(), time.perf_counter()
            p = subprocess.run([sys.executable, "-c", _COMPILE, d.name], capture_output=True, text=True, check=True,
                               env={**os.environ, "NUMBA_CACHE_DIR": cache})
            wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
        seconds = float(p.stdout.split()[-1])
        total += wall
        total_cpu += cpu
        progress.write(f"cold compile {d.name}: {seconds:.1f} s ({wall:.1f} s whole process, CPU {cpu:.1f} s)\n")
        progress.flush()
        rows.append({"case": f"cold compile: {d.name} ({d.kernel.rsplit('.', 1)[-1]} kernel), empty cache",
                     "value": seconds, "unit": "s", "target": None, "booksim2": None, "met": None,
                     "process_wall": wall, "process_cpu": cpu})
    rows.append({"case": "cold compile: every kernel one after another, whole processes", "value": total,
                 "unit": "s", "target": None, "booksim2": None, "met": None, "process_cpu": total_cpu})
    return rows


def run_bench(out: Path | None = None, quick: bool = False, as_json: bool = False, booksim: Path | None = None,
              cold: bool = False, scale: bool = False) -> dict:
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
    rows += _question_rows(quick)
    from .sweeps import sweep_bench

    rows += sweep_bench(quick)
    if cold:
        rows += _cold_rows()
    if booksim is not None:
        from .bench_booksim import TOTAL_CYCLES, side_by_side

        rows += side_by_side(booksim, TOTAL_CYCLES // 10 if quick else TOTAL_CYCLES)
    if scale:
        from .bench_scale import scale_rows

        rows += scale_rows(quick)
    flags = (" --quick" if quick else "") + (" --cold" if cold else "") + (" --scale" if scale else "") + (
        f" --booksim {booksim}" if booksim is not None else "")
    result = {"command": f"switchq bench{flags}" + (f" --out {out}" if out is not None else ""),
              "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                         f"Python {platform.python_version()}",
              "slots_per_run": slots, "booksim2_binary": None if booksim is None else str(booksim), "rows": rows}
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
             f"Generated by `{result.get('command', 'switchq bench --out reports/performance.md')}` on "
             f"{result['machine']}. "
             f"Simulator rates are port-slots per second on one core after compilation, best of "
             f"three runs of {result['slots_per_run']} slots, taken in three rounds over all the cases (a "
             "slow minute of a shared machine costs a case one run); the declared cases' BookSim2 figures "
             "are the foundation issue's, for the same question. Network rates are node-slots per second, one slot "
             "being one 256 B packet time (204.8 ns, 51.2 cycles of the 250 MHz ASIC). Rows naming a "
             "`switchq` command time the whole process (interpreter start, imports, Numba's cache load, the "
             "run, the answer) with the kernel's cache warm; cold compile rows (`--cold`) compile each kernel "
             "into an empty cache in a fresh process; BookSim2 side-by-side rows (`--booksim PATH`) run "
             "BookSim2 in this same run.", "",
             "| case | measured | unit | target | BookSim2 | met |", "|---|---:|---|---:|---:|:---:|"]
    for r in result["rows"]:
        lines.append(f"| {r['case']} | {_value(r)} | {r['unit']} | "
                     f"{'—' if r['target'] is None else format(r['target'], '.3g')} | "
                     f"{'—' if r['booksim2'] is None else format(r['booksim2'], '.3g')} | "
                     f"{'—' if r['met'] is None else ('yes' if r['met'] else 'no')} |")
    from .bench_booksim import markdown_table
    from .bench_scale import markdown_table as scale_table

    lines += markdown_table(result["rows"]) + scale_table(result["rows"])
    return "\n".join(lines) + "\n"
