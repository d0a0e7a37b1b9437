"""Combined input-output queuing with speedup S (Chuang et al. 1999; Dai & Prabhakar 2000).

Simulated as ``cioq``: VOQs, S PIM or iSLIP matching phases per slot,
output queues. Answered as ``cioq``: the saturation throughput min(1, S θ),
and, with S = N and maximal phases, output queuing's exact mean wait.
"""

from __future__ import annotations

from switchq.declaration import Answer, Architecture, BenchCase, Case, Compare
from switchq.errors import InputError
from switchq.models.cioq import CioqSwitch
from switchq.params import Param, check_applies, sim_only
from switchq.solved import Solver, solved

from ._shared import INPUT_BUFFER, LOAD, PORTS, UNICAST_TRAFFIC, switch_family, unicast_traffic, with_default
from .voq import ITERATIONS, MATCHING

SPEEDUP = Param("speedup", "speedup", "int", 2, low=1, unit="phases/slot", aliases=("-s",),
                help="Matching phases per slot S, in [1, N] (1: VOQ; N with maximal phases: output queuing).")


def _check_speedup(p):
    """S in [1, N], refused in one line that says why: at one port the default 2 is refused though no --speedup was
    typed (it stays 2 rather than min(2, N), so every point already stored or printed keeps its inputs)."""
    if p["speedup"] > p["ports"]:
        why = f" (the default {SPEEDUP.default} needs as many ports)" if p["speedup"] == SPEEDUP.default else ""
        raise InputError("speedup", p["speedup"], f"an integer in [1, {p['ports']}], at most --ports{why}")


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    _check_speedup(p)
    sw = CioqSwitch(p["ports"], p["speedup"], p["matching"], p["iterations"], p["input_buffer"])
    return sw, unicast_traffic(p)


def _cioq(p):
    from switchq.solvers import cioq

    _check_speedup(p)
    r = cioq.saturation_throughput(p["ports"], p["speedup"], p["matching"], p["iterations"])
    inputs = {"n_ports": r.n_ports, "speedup": r.speedup, "matching": r.matching, "iterations": r.iterations}
    results = {"saturation_throughput": r.saturation_throughput, "exact": r.exact, "method": r.method,
               "source": r.source}
    if p["load"] is not None:
        w = cioq.mean_wait(p["ports"], p["speedup"], p["matching"], p["iterations"], p["load"])
        inputs["load"] = w.load
        results.update(mean_wait=w.mean_wait, mean_wait_formula=w.formula)
    return inputs, results


# min(1, S theta) where exact (PIM) against what the twin carries at load 1; with S = N and maximal phases, output
# queuing's exact mean wait at --load.
_COMPARES = (Compare("saturation_throughput", "throughput", saturated=True, why="min(1, S theta), theta PIM's exact",
                     applies=lambda p, r: "" if r.get("exact") else "not exact here (iSLIP's theta is a limit)"),
             Compare("mean_wait", "mean_wait", why="output queuing's exact mean wait (Karol et al.)"))


DECLARATION = Architecture(
    name="cioq", order=35, **switch_family("cell"),
    sample={"ports": 4, "load": 0.9, "speedup": 2},
    title="CIOQ with speedup",
    summary="combined input-output queuing with speedup S: saturation min(1, S theta); S = N with maximal "
            "phases is output queuing (exact mean wait)",
    description="Combined input-output queuing: VOQs, S PIM or iSLIP matching phases per slot, output queues.",
    config=(CioqSwitch,), architectures=("cioq",), params=(PORTS, SPEEDUP, MATCHING, ITERATIONS, INPUT_BUFFER),
    build=build, kernel="switchq.validate.arch.cioq",
    vary_example="speedup=1:4 --vary load=0.5:0.9:0.1 --ports 16 --matching pim --simulate",
    examples=("switchq simulate cioq --ports 16 --speedup 2 --matching pim --load 0.95 --json",
              "switchq simulate cioq --ports 8 --speedup 8 --iterations 8 --load 0.8"),
    answers=(
        Answer("cioq", "CIOQ with speedup: saturation throughput",
               "CIOQ with speedup S: saturation throughput min(1, S theta); with S = N and maximal phases, output "
               "queuing's mean wait at --load",
               params=(PORTS, SPEEDUP, MATCHING, ITERATIONS, with_default(LOAD, None),
                       *sim_only(INPUT_BUFFER, *UNICAST_TRAFFIC[1:])),
               solve=_cioq, twin=lambda p: {**p, "load": 1.0 if p["load"] is None else p["load"]},
               returns=(Solver("cioq.saturation_throughput"), Solver("cioq.mean_wait")),
               results=("saturation_throughput", "exact", "mean_wait", "method", "mean_wait_formula", "source"),
               table=("saturation_throughput", "exact"),
               description="Saturation throughput of a CIOQ switch with speedup S under uniform traffic: "
                           "min(1, S theta), theta the saturated PIM or iSLIP matching's (exact for PIM). With "
                           "S = N and iterations >= N every phase is maximal and the switch is output queuing: "
                           "--load gives its exact mean wait (Karol et al.).",
               examples=("switchq solve cioq --ports 16 --speedup 2 --matching pim --json",
                         "switchq solve cioq --ports 8 --speedup 8 --iterations 8 --load 0.8"),
               vary_example="speedup=1:4 --ports 16 --matching pim", compares=_COMPARES),
    ),
    cases=(
        Case("cioq", "S=1, PIM k=1, N=16, saturated (the VOQ switch)",
             {"ports": 16, "speedup": 1, "matching": "pim", "load": 1.0}, "throughput",
             solved("cioq.saturation_throughput", 16, 1, "pim", 1), slots=180_000, unit="cells/slot/output",
             saturated=True),
        # Below min(1, 2 x 0.644) = 1 the switch carries its load; 0.9 keeps the output queues stable.
        Case("cioq", "S=2, PIM k=1, N=16, load 0.9", {"ports": 16, "speedup": 2, "matching": "pim", "load": 0.9},
             "carried_share", lambda: (1.0, "all offered cells carried below saturation min(1, S theta) = 1"),
             slots=120_000, unit="1"),
        Case("cioq", "S=N=8, iSLIP 8 iterations, load 0.8 (output queuing)",
             {"ports": 8, "speedup": 8, "iterations": 8, "load": 0.8}, "mean_wait",
             solved("cioq.mean_wait", 8, 8, "islip", 8, 0.8, method="output queuing: {}"), slots=300_000,
             why="Exact: with S = N and maximal phases every cell reaches its output in its arrival slot."),
    ),
    bench=(BenchCase("CIOQ 32x32 speedup 2, iSLIP, load 0.95", {"ports": 32, "speedup": 2, "load": 0.95}),),
    report=(("cioq", "switchq.validate.reports.cioq"),),
)
