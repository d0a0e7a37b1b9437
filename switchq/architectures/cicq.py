"""Buffered crossbar (CICQ) with credit or speculative flow control (paper 002 §2-§5).

Simulated as ``cicq`` (latency per burst); answered as ``cicq``: the
low-load burst latency and the rate bound min(Q_R/tau, 1) of one flow.
"""

from __future__ import annotations

from switchq.declaration import Answer, Architecture, BenchCase, Case, Counter, Metric
from switchq.models.cicq import ARBITRATIONS, MAX_PRIORITIES, BufferedCrossbar
from switchq.models.flow_control import PROTOCOLS, RESENDS, FlowControl
from switchq.models.traffic import Traffic
from switchq.params import REQUIRED, Above, Param, check_applies, sim_only
from switchq.solved import solved

from ._shared import (BURST, LOAD, PORTS, UNICAST_TRAFFIC, latency_per, switch_counters, switch_metrics,
                      switch_stability, unicast_traffic)

RTT_SLOTS = Param("rtt_slots", "rtt_slots", "int", REQUIRED, low=1, high=1 << 16, unit="slots", aliases=("tau",),
                  help="Round trip tau in cell slots.")
CROSSPOINT = Param("crosspoint_cells", "crosspoint_cells", "int", REQUIRED, low=1, high=1 << 16, unit="cells",
                   aliases=("q_r",), help="Crosspoint buffer Q_R in cells.")
PROTOCOL = Param("protocol", "protocol", "choice", "credit", choices=PROTOCOLS, switches=(("--sfc", "sfc"),),
                 help="Credit flow control, or speculative flow control (paper 002 §3; --sfc).")
DATA_DELAY = Param("data_delay", "data_delay_slots", "int", None, low=0, unit="slots",
                   default_text="tau - ceil(tau/2)",
                   help="Slots from line card to crosspoint; credits take the rest of the round trip.")
SFC = ("protocol", ("sfc",))
RETRANSMISSION = Param("retransmission_cells", "retransmission_cells", "int", None, low=1, unit="cells",
                       default_text="max(tau, Q_R N)", help="SFC retransmission buffer Q_RTX per input.",
                       applies=SFC)
RESEND = Param("resend", "resend", "choice", None, choices=RESENDS, default_text="eager with SFC",
               help="SFC: resend a speculative cell at the first credit (eager, R7 as written) or a sent cell "
                    "only once NAKed (nak, §6.2); see switchq.models.flow_control and report sfc.", applies=SFC)
REPLACEMENT = Param("replacement", "replacement", "flag", False,
                    help="SFC: replace lower-priority cells at a full crosspoint (§3.2).", applies=SFC)
PRIORITIES = Param("priorities", "priorities", "int", 1, low=1, high=MAX_PRIORITIES, unit="classes",
                   help="Strict-priority classes.")
ARBITRATION = Param("arbitration", "arbitration", "choice", "lqf", choices=ARBITRATIONS,
                    help="VOQ and output arbitration: longest queue first or round robin.")
SHARES = Param("priority_shares", "priority_shares", "floats", None, low=0, high=1, default_text="equal",
               help="Share of bursts per priority, highest first, e.g. 0.5,0.5.", applies=("priorities", Above(2)))


def _flow_control(p, simulated: bool = True):
    from switchq.models import FlowControl

    extra = ({"retransmission_cells": p["retransmission_cells"], "replacement": p["replacement"],
              "resend": p["resend"]} if simulated else {})
    return FlowControl(rtt_slots=p["rtt_slots"], crosspoint_cells=p["crosspoint_cells"], protocol=p["protocol"],
                       data_delay_slots=p["data_delay"], **extra)


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    shares = p["priority_shares"] or (1.0 / p["priorities"],) * p["priorities"]
    sw = BufferedCrossbar(p["ports"], _flow_control(p), p["priorities"], p["arbitration"])
    return sw, unicast_traffic(p, shares)


def _cicq(p):
    from switchq.solvers import cicq

    fc = _flow_control(p, simulated=False)
    e = cicq.low_load_burst_latency(fc.protocol, p["burst"], fc.crosspoint_cells, fc.rtt_slots, fc.data_delay_slots)
    return ({"protocol": fc.protocol, "rtt_slots": fc.rtt_slots, "crosspoint_cells": fc.crosspoint_cells,
             "mean_burst": p["burst"]},
            {"low_load_burst_latency": e.mean_latency, "low_load_burst_latency_rtts": e.mean_latency_rtts,
             "permutation_throughput": cicq.permutation_throughput(fc.protocol, fc.crosspoint_cells, fc.rtt_slots),
             "data_delay_slots": fc.data_delay_slots, "formula": e.formula, "source": e.source})


def _by_priority(c):
    import numpy as np

    p = c.system.priorities
    if p < 2:
        return None
    return np.column_stack([c[f"m_latency_sum_p{k}"] / c[f"m_latency_count_p{k}"] for k in range(p)])


_N, _TAU = 16, 32
_Q_R = _TAU // _N + 2  # the paper's crosspoint size, floor(tau / N) + 2


def _permutation_case(protocol):
    return Case("sfc", f"{protocol}, w=1, N={_N}, tau={_TAU}, Q_R={_Q_R}",
                {"ports": _N, "rtt_slots": _TAU, "crosspoint_cells": _Q_R, "protocol": protocol, "load": 1.0,
                 "unbalanced": 1.0}, "throughput",
                solved("cicq.permutation_throughput", protocol, _Q_R, _TAU,
                       method="min(Q_R/tau, 1) with credits; 1 with SFC"),
                slots=12_000, replications=5, tolerance_slots=2,
                unit="cells/slot/output", saturated=True,
                why="The saturated credit loop is deterministic: the measured window can only catch one cell more "
                    "or less per output at its edges, hence a tolerance of 2 cells over the window.")


def _uniform_case(protocol):
    # Fig. 3: uniform Bernoulli traffic below saturation is carried in full either way.
    return Case("sfc", f"{protocol}, uniform Bernoulli load 0.8",
                {"ports": _N, "rtt_slots": _TAU, "crosspoint_cells": _Q_R, "protocol": protocol, "load": 0.8},
                "carried_share", lambda: (1.0, "all offered cells carried below saturation"), slots=30_000,
                unit="1")


def _burst_case(tau):
    q_r = tau // _N + 2
    return Case("sfc", f"credit, bursts of 10, load 0.05, tau={tau}, Q_R={q_r}",
                {"ports": _N, "rtt_slots": tau, "crosspoint_cells": q_r, "load": 0.05, "burst": 10.0},
                "mean_latency",
                solved("cicq.low_load_burst_latency", "credit", 10.0, q_r, tau,
                       FlowControl(tau, q_r).data_delay_slots),
                tolerance_share=0.05, slots=60_000, unit="slots/burst",
                why="The isolated-burst formula ignores other bursts; at 5 % load they add 1-3 % (measured at "
                    "N = 16, tau = 8..64), so the tolerance is 5 % of the value.")


_SFC_BENCH = {"ports": 16, "rtt_slots": 32, "crosspoint_cells": 4, "protocol": "sfc"}

DECLARATION = Architecture(
    name="cicq", family="switch", order=40,
    sample={"ports": 4, "rtt_slots": 6, "crosspoint_cells": 2, "protocol": "sfc", "load": 0.8, "burst": 3.0},
    title="Buffered crossbar (CICQ)",
    summary="buffered crossbar with credits or SFC (paper 002): low-load burst latency and the w = 1 rate bound "
            "min(Q_R/tau, 1); simulated: any load and traffic (latency per burst)",
    description="Buffered crossbar (CICQ) with credit or speculative flow control; latency is per burst.",
    config=(BufferedCrossbar,), accepts=(Traffic,), architectures=("cicq",),
    params=(PORTS, RTT_SLOTS, CROSSPOINT, PROTOCOL, RETRANSMISSION, DATA_DELAY, PRIORITIES, REPLACEMENT, RESEND,
            ARBITRATION),
    workload=(*UNICAST_TRAFFIC, SHARES), build=build,
    kernel="switchq.validate.arch.cicq",
    metrics=(*switch_metrics(), Metric("mean_latency_by_priority", "slots", _by_priority,
                                       "burst latency of each priority class, highest first")),
    counters=(*switch_counters(), *(Counter(n, u) for n, u in (
        ("transmissions", "cells"), ("speculative_transmissions", "cells"), ("retransmissions", "cells"), ("naks", "cells"),
        ("duplicates", "cells"), ("replacements", "cells"), ("order_errors", "cells"),
        ("credited_drops", "cells"), ("out_of_order_drops", "cells"))),
        Counter("credit_min", "credits", "min"), Counter("credit_max", "credits", "max"),
        Counter("retransmission_max", "cells", "max")),
    units={"priority_shares": "1"},
    labels=latency_per("burst"), stability=switch_stability("cells"),
    main="mean_latency",
    examples=("switchq simulate cicq --ports 16 --rtt-slots 32 --crosspoint-cells 4 --load 0.1 --burst 10 --sfc",
              "switchq simulate cicq --ports 16 --rtt-slots 32 --crosspoint-cells 4 --load 1 --unbalanced 1 --json"),
    answers=(
        Answer("cicq", "Buffered crossbar (CICQ)",
               "buffered crossbar with credits or SFC (paper 002): low-load burst latency and the w = 1 rate bound "
               "min(Q_R/tau, 1); simulated: any load and traffic (latency per burst)",
               params=(RTT_SLOTS, CROSSPOINT, PROTOCOL, BURST, DATA_DELAY,
                       *sim_only(PORTS, LOAD, RETRANSMISSION, REPLACEMENT, RESEND, PRIORITIES, ARBITRATION,
                                 *(q for q in UNICAST_TRAFFIC[1:] if q.name != "burst"))),
               solve=_cicq, check=lambda p: _flow_control(p, simulated=False),
               twin=lambda p: {**p, "priority_shares": None},
               results=("low_load_burst_latency", "low_load_burst_latency_rtts", "permutation_throughput",
                        "data_delay_slots", "formula", "source"),
               units={"low_load_burst_latency": "slots/burst", "low_load_burst_latency_rtts": "round trips",
                      "permutation_throughput": "cells/slot/output"},
               main="low_load_burst_latency",
               table=("low_load_burst_latency", "low_load_burst_latency_rtts", "permutation_throughput"),
               sim_main="mean_latency",
               description="Low-load burst latency and the one-flow rate bound of a buffered crossbar with credits "
                           "or SFC (paper 002 §2.3, §5).",
               examples=("switchq solve cicq --rtt-slots 32 --crosspoint-cells 4 --burst 10 --json",),
               vary_example="burst=1:20:1 --vary protocol=credit,sfc --rtt-slots 32 --crosspoint-cells 4"),
    ),
    cases=(*(_permutation_case(p) for p in PROTOCOLS), *(_uniform_case(p) for p in PROTOCOLS),
           *(_burst_case(t) for t in (16, 32))),
    bench=(BenchCase("CICQ 16x16 SFC tau 32, uniform load 0.9", {**_SFC_BENCH, "load": 0.9}, 5e6),
           BenchCase("CICQ 16x16 SFC tau 32, bursts of 10, load 0.5", {**_SFC_BENCH, "load": 0.5, "burst": 10.0},
                     5e6)),
    report=(("sfc", "switchq.validate.reports.sfc"),),
)
