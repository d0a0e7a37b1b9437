"""``switchq bench --scale``: what a network simulation costs as the network grows (issue 38), one whole process a
run: peak memory and node-cycles per second at 256, 1024 and 4096 nodes, load 0.5 (below saturation).

Two architectures: ``bmin`` (the DAMQ buffered multistage network of issue 26's question, 640-flit buffers,
64-flit messages) and ``iq-router`` (BookSim2's router on the fat tree of ``switchq bench --booksim``'s file, 640
flits shared by 4 VCs a port, 64-flit packets). The goals: under 1 GB at 1024 nodes and 4 GB at 4096, node-cycles
per second at 1024 nodes within 2x of 64 nodes', a 4096-node run of 20,000 cycles within 10 minutes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .bench_booksim import config_file, measured

SIZES = (64, 256, 1024, 4096)
LOAD = 0.5
CYCLES = 20_000
WARMUP = 2_000
GOALS = {1024: 1e9, 4096: 4e9}       # peak bytes


def command(arch: str, nodes: int, cycles: int, config: Path | None = None) -> list:
    """One replication of ``cycles`` after a warm-up of 2,000, one worker, as JSON."""
    head = [sys.executable, "-m", "switchq", "simulate", arch]
    if arch == "bmin":
        head += f"--nodes {nodes} --buffer-org damq --message-flits 64 --buffer-flits 640 --load {LOAD}".split()
    else:
        head += ["--booksim-config", str(config)]
    return head + f"--cycles {cycles} --warmup {WARMUP} -r 1 --workers 1 --json".split()


def cycles_for(nodes: int, quick: bool = False) -> int:
    """Measured cycles: 20,000, and at 64 nodes four times that, so the simulation's own wall (which includes
    loading its compiled kernel, about 0.2 s) is not a fifth of the baseline the 1024-node speed is held to."""
    cycles = CYCLES * (4 if nodes <= 64 else 1)
    return cycles // 10 if quick else cycles


def scale_rows(quick: bool = False, progress=sys.stderr) -> list:
    """Per architecture and size: the whole process's peak memory and node-cycles/s (its simulation's wall)."""
    rows = []
    for arch in ("bmin", "iq-router"):
        rates = {}
        for nodes in SIZES:
            cycles = cycles_for(nodes, quick)
            with config_file(nodes, LOAD, 2 * (cycles + WARMUP), runs=1) as cfg:
                p = measured(command(arch, nodes, cycles, cfg))
            if p["returncode"] != 0:
                raise RuntimeError(f"switchq {arch} at {nodes} nodes failed: {p['stderr'][-400:]}")
            r = json.loads(p["stdout"])
            done = (r["slots"] + r["warmup_slots"]) * r["replications"]
            rate = nodes * done / r["wall_seconds"]
            rates[nodes] = rate
            progress.write(f"scale: {arch} {nodes} nodes: peak {p['peak'] / 1e6:.0f} MB, {rate:.3g} node-cycles/s, "
                           f"{p['wall']:.1f} s whole process\n")
            progress.flush()
            goal = GOALS.get(nodes)
            rows.append({"case": f"scale: {arch}, {nodes} nodes, load {LOAD}, {done} cycles: peak memory",
                         "value": p["peak"] / 1e6, "unit": "MB", "target": None if goal is None else goal / 1e6,
                         "booksim2": None, "met": None if goal is None else p["peak"] <= goal, "arch": arch,
                         "nodes": nodes, "peak": p["peak"], "rate": rate, "wall": p["wall"], "cycles": done})
            row = {"case": f"scale: {arch}, {nodes} nodes: simulation speed", "value": rate,
                   "unit": "node-cycles/s", "target": None, "booksim2": None, "met": None, "arch": arch,
                   "nodes": nodes}
            if nodes == 1024:
                row.update(target=rates[64] / 2, met=rate >= rates[64] / 2,
                           case=row["case"] + " (goal: within 2x of 64 nodes')")
            rows.append(row)
            if nodes == 4096:
                whole = p["wall"] * CYCLES / cycles     # quick: start-up and warm-up scaled too (errs high)
                rows.append({"case": f"scale: {arch}, 4096 nodes: whole process for {CYCLES} cycles"
                                     + ("" if cycles == CYCLES else " (scaled from the quick run)"),
                             "value": whole, "unit": "s", "target": 600.0, "booksim2": None, "met": whole <= 600.0,
                             "arch": arch, "nodes": nodes})
    return rows


def markdown_table(rows: list) -> list:
    """The scale rows as a table: per architecture and size, peak memory and speed."""
    mem = [r for r in rows if r.get("arch") and r["unit"] == "MB"]
    if not mem:
        return []
    lines = ["", "## Cost as the network grows", "",
             f"`switchq bench --scale`: one whole process a run, load {LOAD}, one replication after {WARMUP:,} "
             "cycles of warm-up; the process's peak resident memory (its VmHWM) and node-cycles per second of its "
             "simulation. Goals: 1 GB at 1024 nodes, 4 GB at 4096, 1024 nodes within 2x of 64 nodes' speed.", "",
             "| architecture | nodes | cycles | peak MB | node-cycles/s | whole process s |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in mem:
        lines.append(f"| {r['arch']} | {r['nodes']} | {r['cycles']} | {r['value']:.0f} | {r['rate']:.3g} | "
                     f"{r['wall']:.1f} |")
    return lines
