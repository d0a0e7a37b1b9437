"""Virtual output queuing matched by PIM or iSLIP (paper 000 §2.1; Anderson et al. 1993; McKeown 1999).

Simulated as ``voq``; answered as ``voq``: PIM's exact k-iteration
saturation recursion and iSLIP's 100 % under uniform traffic.
"""

from __future__ import annotations

from switchq.declaration import Answer, Architecture, BenchCase, Case, Compare
from switchq.models.voq import MATCHINGS, VoqSwitch
from switchq.params import Param, check_applies, sim_only
from switchq.solved import Solver, solved

from ._shared import INPUT_BUFFER, LOAD, PORTS, UNICAST_TRAFFIC, switch_family, unicast_traffic, with_default

MATCHING = Param("matching", "matching", "choice", "islip", choices=MATCHINGS, help="VOQ matching.")
ITERATIONS = Param("iterations", "iterations", "int", 1, low=1, high=64, unit="iterations", aliases=("-k",),
                   help="Matching iterations per slot.")


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    return VoqSwitch(p["ports"], p["matching"], p["iterations"], p["input_buffer"]), unicast_traffic(p)


def _check(p):
    from switchq.models.switch import check_ports

    check_ports(p["ports"])


def _pim_case(k):
    return Case("voq", f"PIM k={k}, N=16, saturated", {"ports": 16, "load": 1.0, "matching": "pim", "iterations": k},
                "throughput", solved("voq.saturation_throughput", 16, "pim", k), slots=180_000,
                unit="cells/slot/output", saturated=True)


def _islip_analytic():
    from switchq.solvers import voq

    a = voq.saturation_throughput(16, "islip", 1)
    return (min(1.0, a.saturation_throughput / 0.8),
            "all offered cells carried: load 0.8 below saturation " + f"{a.saturation_throughput:g} ({a.method})")


# PIM's exact recursion against what the twin carries at load 1 (overloaded by design); iSLIP's 100 % is the limit its
# saturated queues approach, not a value a finite run measures.
_PIM = Compare("saturation_throughput", "throughput", saturated=True, why="PIM: exact k-iteration recursion",
               applies=lambda p, r: "" if p.get("matching") == "pim" else
               "iSLIP's 100 % is a limit a saturated run approaches, not a value it measures")


DECLARATION = Architecture(
    name="voq", order=30, **switch_family("cell"),
    sample={"ports": 4, "load": 0.8, "matching": "pim", "iterations": 2},
    title="VOQ",
    summary="VOQ with PIM or iSLIP: saturation throughput; simulated at any load (default 1: saturated)",
    description="Virtual output queuing matched by PIM or iSLIP.",
    config=(VoqSwitch,), architectures=("voq",), params=(PORTS, MATCHING, ITERATIONS, INPUT_BUFFER), build=build,
    kernel="switchq.validate.arch.voq",
    examples=("switchq simulate voq --ports 32 --load 0.9 --matching islip --iterations 1",),
    answers=(
        Answer("voq", "VOQ: saturation throughput",
               "VOQ with PIM or iSLIP: saturation throughput; simulated at any load (default 1: saturated)",
               params=(PORTS, MATCHING, ITERATIONS, *sim_only(with_default(LOAD, 1.0), INPUT_BUFFER,
                                                             *UNICAST_TRAFFIC[1:])),
               solve=Solver("voq.saturation_throughput"), check=_check, twin=lambda p: p,
               sim_table=("throughput", "mean_latency", "unstable"),
               description="Saturation throughput of a VOQ switch matched by PIM or iSLIP, uniform traffic.",
               examples=("switchq solve voq --ports 16 --matching pim --iterations 2",),
               vary_example="ports=4:64:*2 --matching pim", compares=(_PIM,)),
    ),
    cases=(_pim_case(1), _pim_case(2),
           # Below its saturation throughput a stable switch carries all it is offered. One-iteration iSLIP
           # waits ~45 slots at this load, so warm up long enough for the backlog to settle.
           # The carried share, not the throughput: the throughput's spread is mostly how many cells
           # happened to arrive (at seed 1 the offered count itself is 3.0 standard errors low), which says
           # nothing about the switch; the share delivered of those offered is free of it.
           Case("voq", "iSLIP k=1, N=16, load 0.8", {"ports": 16, "load": 0.8}, "carried_share", _islip_analytic,
                slots=300_000, warmup_share=0.25, unit="1")),
    bench=(BenchCase("VOQ 32x32 iSLIP 1 iteration saturated", {"ports": 32, "load": 1.0, "matching": "islip"},
                     1e7, 1e5),
           BenchCase("VOQ 32x32 PIM 4 iterations saturated",
                     {"ports": 32, "load": 1.0, "matching": "pim", "iterations": 4})),
)
