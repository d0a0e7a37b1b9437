"""``switchq bench --booksim PATH``: the same network question asked of BookSim2 and of switchq, one whole
process at a time, and the ratio of their speeds.

The question (issue 26): a fat tree of 8-port switches, 16 or 64 nodes, cut-through with one buffer of 640
flits per input port shared by whatever waits in it, 64-flit packets, Bernoulli arrivals of uniformly
addressed packets at a load in flits per node per cycle, 1.6 M cycles in all (two runs of 800,000 cycles,
the first half of each a warm-up). BookSim2's side is the configuration :func:`booksim_config` writes
(each line says why); switchq's is :func:`switchq_command`. Each side's speed is node-cycles per second of
the whole process (its start-up included): nodes x cycles it reports having simulated / wall seconds.
BookSim2 counts its drain too (after the measured period it stops injecting and runs until the network is
empty), so its cycles are read from its output ("Time taken is N cycles", one line per simulation), not
assumed.
"""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = ((16, 0.3), (16, 0.8), (64, 0.3), (64, 0.8))
TOTAL_CYCLES = 1_600_000      # per case and tool: two runs, each half warm-up, half measured
TARGET = 30.0                 # switchq's speed as a multiple of BookSim2's (issue 26)

# BookSim2's configuration, a line per setting and why (its defaults: src/booksim_config.cpp).
_CONFIG = (
    ("topology = fattree;", "BookSim2's k-ary n-tree (networks/fattree.cpp)"),
    ("k = 4;", "4 down + 4 up ports: 8-port switches (the top level uses its 4 down ports)"),
    ("n = {levels};", "levels: 4^n nodes"),
    ("routing_function = nca;", "nca_fattree: up on a random port to the nearest common ancestor, then down"),
    ("router = iq;", "input-queued virtual-channel router (routers/iq_router.cpp)"),
    ("num_vcs = 4;", "4 virtual channels per input port"),
    ("buffer_policy = shared;", "one buffer per input port for all its VCs (SharedBufferPolicy)"),
    ("buf_size = 640;", "640 flits per input port"),
    ("private_buf_size = 0;", "none reserved per VC (default 1 each): all 640 shared, as a DAMQ shares"),
    ("packet_size = {flits};", "flits per packet"),
    ("injection_rate_uses_flits = 1;", "injection_rate in flits per node per cycle"),
    ("injection_rate = {load};", "the load"),
    ("injection_process = bernoulli;", "a packet starts at a node in a cycle with probability rate / packet_size"),
    ("traffic = uniform;", "destination uniform over all nodes, the sender included"),
    ("sim_type = throughput;", "no latency-threshold abort, no wait for measured packets"),
    ("warmup_periods = 1;", "the first period is warm-up, whatever the statistics say"),
    ("sample_period = {period};", "cycles per period"),
    ("max_samples = 2;", "the second period, measured, is the last: 2 x sample_period cycles + drain"),
    ("sim_count = {runs};", "independent simulations in the one process, as switchq's -r {runs}"),
    ("seed = {seed};", "fixed random seed"),
)


def booksim_config(nodes: int, load: float, total_cycles: int = TOTAL_CYCLES, runs: int = 2, seed: int = 1,
                   message_flits: int = 64) -> str:
    """BookSim2's configuration for the question: ``runs`` simulations of ``total_cycles / runs`` cycles each
    (a warm-up period and a measured one of equal length), plus each one's drain.

    Examples
    --------
    >>> print(booksim_config(64, 0.8).splitlines()[3])
    n = 3;                          // levels: 4^n nodes
    """
    levels = {16: 2, 64: 3}.get(nodes)
    if levels is None:
        raise ValueError(f"nodes {nodes}: BookSim2's fat tree of 8-port switches has 16 or 64 here")
    period = total_cycles // (2 * runs)
    values = dict(load=load, runs=runs, period=period, levels=levels, flits=message_flits, seed=seed)
    head = f"// switchq bench: {nodes} nodes, load {load}, {runs} runs of {period} + {period} cycles\n"
    return head + "".join(f"{setting.format(**values):<32}// {why.format(**values)}\n" for setting, why in _CONFIG)


def parse_booksim(text: str) -> dict:
    """What a BookSim2 run printed: ``cycles`` (per simulation, drain included), their ``total``, ``nodes``,
    its own ``run_time`` (seconds of the simulation loop), the ``accepted`` flit rate per node averaged over
    the simulations, and ``complete`` (every simulation ended, none called unstable)."""
    cycles = [int(c) for c in re.findall(r"^Time taken is (\d+) cycles", text, re.M)]
    nodes = re.search(r"# of nodes \( size of network \) = (\d+)", text)
    run_time = re.search(r"^Total run time ([0-9.eE+-]+)", text, re.M)
    accepted = re.search(r"^Accepted flit rate average = ([0-9.eE+-]+) \((\d+) samples\)", text, re.M)
    sims = re.search(r"^sim_count = (\d+);", text, re.M)
    complete = (run_time is not None and "Simulation unstable" not in text
                and (sims is None or len(cycles) == int(sims.group(1))))
    return {"cycles": cycles, "total": sum(cycles), "nodes": int(nodes.group(1)) if nodes else None,
            "run_time": float(run_time.group(1)) if run_time else None,
            "accepted": float(accepted.group(1)) if accepted else None, "complete": complete}


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_booksim(binary: str | Path, nodes: int, load: float, total_cycles: int = TOTAL_CYCLES) -> dict:
    """Run BookSim2 on the question; its parsed output with ``wall`` (whole process) and ``rate``
    (node-cycles per second of the whole process). BookSim2 exits 255 after a run that ended well."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "fattree.cfg"
        cfg.write_text(booksim_config(nodes, load, total_cycles))
        c0, t0 = _children_cpu(), time.perf_counter()
        p = subprocess.run([str(binary), str(cfg)], capture_output=True, text=True, cwd=tmp)
        wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    out = parse_booksim(p.stdout)
    if not out["complete"] or out["nodes"] != nodes:
        raise RuntimeError(f"BookSim2 ({binary}) on {nodes} nodes at load {load} did not finish as asked "
                           f"(exit {p.returncode}): {(p.stdout + p.stderr)[-400:]}")
    return {**out, "wall": wall, "cpu": cpu, "rate": nodes * out["total"] / wall}


def switchq_command(nodes: int, load: float, total_cycles: int = TOTAL_CYCLES, runs: int = 2) -> list:
    """switchq's side: the whole ``switchq simulate`` process, the same question, one worker."""
    half = total_cycles // (2 * runs)
    return [sys.executable, "-m", "switchq"] + (
        f"simulate bmin --nodes {nodes} --buffer-org damq --message-flits 64 --buffer-flits 640 "
        f"--uniform-over all --load {load} --cycles {half} --warmup {half} -r {runs} --workers 1 --json").split()


def _cache_stamp() -> float:
    """Latest change to Numba's cache index files of the simulator kernels (a compile writes one)."""
    import os

    import switchq.validate as v

    roots = [Path(p) for p in v.__path__] + ([Path(os.environ["NUMBA_CACHE_DIR"])]
                                             if os.environ.get("NUMBA_CACHE_DIR") else [])
    return max((f.stat().st_mtime for root in roots for f in root.rglob("*.nbi")), default=0.0)


def run_switchq(nodes: int, load: float, total_cycles: int = TOTAL_CYCLES, attempts: int = 3) -> dict:
    """The whole switchq process on the question: ``wall``, the cycles it simulated and ``rate``. A run that
    compiled its kernel (a source edited since the warm-up: Numba's cache index rewritten meanwhile) is run
    again, up to ``attempts`` times; ``compiled`` counts the runs so discarded."""
    cmd = switchq_command(nodes, load, total_cycles)
    for compiled in range(attempts):
        stamp = _cache_stamp()
        c0, t0 = _children_cpu(), time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, check=True)
        wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
        if _cache_stamp() == stamp:
            break
    r = json.loads(p.stdout)
    cycles = (r["slots"] + r["warmup_slots"]) * r["replications"]
    return {"wall": wall, "cpu": cpu, "total": cycles, "rate": nodes * cycles / wall, "throughput": r["throughput"],
            "inner_wall": r.get("wall_seconds"), "compiled": compiled}


def _warm_switchq(nodes: int) -> None:
    """Load (or compile) the kernel into Numba's cache with a tiny run, so no timed run compiles."""
    subprocess.run(switchq_command(nodes, 0.3, 800), capture_output=True, check=True)


def side_by_side(binary: str | Path, total_cycles: int = TOTAL_CYCLES, progress=sys.stderr) -> list:
    """Bench rows: per case, switchq's whole-process rate beside BookSim2's, then the ratio (target 30)."""
    rows = []
    for nodes, load in CASES:
        b = run_booksim(binary, nodes, load, total_cycles)
        # Just before the timed run, so a source edited meanwhile (Numba's cache then recompiles) is not timed.
        _warm_switchq(nodes)
        s = run_switchq(nodes, load, total_cycles)
        ratio = s["rate"] / b["rate"]
        progress.write(f"BookSim2 side by side, {nodes} nodes, load {load}: BookSim2 {b['rate']:.3g} "
                       f"node-cycles/s ({b['total']} cycles in {b['wall']:.1f} s, CPU {b.get('cpu', 0):.1f} s), "
                       f"switchq {s['rate']:.3g} ({s['total']} cycles in {s['wall']:.1f} s, CPU "
                       f"{s.get('cpu', 0):.1f} s), ratio {ratio:.3g}\n")
        progress.flush()
        what = (f"fat tree {nodes} nodes, 8-port switches, 640-flit shared input buffers, 64-flit packets, "
                f"uniform load {load}, {s['total'] / 1e6:.3g} M cycles, whole process")
        # CPU seconds beside the walls: on a shared machine a wall well above its CPU time was kept waiting.
        extra = {"nodes": nodes, "load": load, "switchq_rate": s["rate"], "switchq_wall": s["wall"],
                 "switchq_cpu": s.get("cpu"), "switchq_cycles": s["total"], "switchq_compiled": s.get("compiled"),
                 "booksim2_rate": b["rate"], "booksim2_wall": b["wall"], "booksim2_cpu": b.get("cpu"),
                 "booksim2_cycles": b["total"], "booksim2_accepted": b["accepted"],
                 "switchq_throughput": s["throughput"], "ratio": ratio}
        rows.append({"case": f"BookSim2 question: {what}", "value": s["rate"], "unit": "node-cycles/s",
                     "target": None, "booksim2": b["rate"], "met": None, **extra})
        rows.append({"case": f"switchq / BookSim2 speed, {nodes} nodes, load {load}", "value": ratio,
                     "unit": "x", "target": TARGET, "booksim2": None, "met": ratio >= TARGET, **extra})
    return rows


def _secs(x) -> str:
    return "—" if x is None else f"{x:.1f}"


def markdown_table(rows: list) -> list:
    """The side-by-side rows as the issue's table (lines of markdown); empty without them."""
    pairs = [r for r in rows if "ratio" in r and r["unit"] == "x"]
    if not pairs:
        return []
    lines = ["", "## BookSim2 side by side", "",
             "The same question asked of both, one whole process at a time (`switchq bench --booksim PATH`): "
             "node-cycles per second, nodes x cycles simulated (BookSim2's drain included, as it reports it) "
             "/ wall seconds of the process. BookSim2's configuration is `switchq.bench_booksim.booksim_config`.",
             "CPU seconds stand beside the wall seconds: on a shared machine a wall well above them was kept "
             "waiting for a core.",
             "", "| nodes | load | BookSim2 | cycles | wall s | CPU s | switchq | cycles | wall s | CPU s | ratio "
             "| target |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in pairs:
        lines.append(f"| {r['nodes']} | {r['load']} | {r['booksim2_rate']:.3g} | {r['booksim2_cycles']} | "
                     f"{r['booksim2_wall']:.1f} | {_secs(r.get('booksim2_cpu'))} | {r['switchq_rate']:.3g} | "
                     f"{r['switchq_cycles']} | {r['switchq_wall']:.1f} | {_secs(r.get('switchq_cpu'))} | "
                     f"{r['ratio']:.3g} | {r['target']:.3g} |")
    return lines
