"""Multicast on one switch: crosspoint-buffered output queuing vs FIFO input queuing (paper 003 §2, §3.1).

Simulated as ``multicast`` (``--arch oq-crosspoint|iq-split|iq-nosplit|iq-wba``);
answered as ``multicast``: exact saturated chains for small switches, the
iq-split large-N approximation, otherwise the admissible bound.
"""

from __future__ import annotations

from dataclasses import replace

from switchq.declaration import Answer, Architecture, BenchCase, Case, Compare
from switchq.models.multicast import MAX_MULTICAST_PORTS, MULTICAST_ARCHITECTURES, MulticastSwitch
from switchq.models.traffic import Traffic
from switchq.params import REQUIRED, Above, Param, check_applies, sim_only
from switchq.solved import Solver, solved

from ._shared import LOAD, PORTS, latency_per, switch_counters, switch_metrics, switch_stability, with_default

ARCH = Param("arch", "architecture", "choice", "oq-crosspoint", choices=MULTICAST_ARCHITECTURES,
             help="Output queuing with crosspoint buffers and credits, or FIFO input queuing with/without fanout "
                  "splitting (random grants), or with splitting and WBA grants (Prabhakar et al. 1997; "
                  "simulated only).")
MC_PORTS = replace(PORTS, high=MAX_MULTICAST_PORTS)
INPUTS = Param("inputs", "active_inputs", "int", None, low=1, unit="ports", default_text="all N",
               help="Active inputs M offering traffic.")
FANOUT = Param("fanout", "fanout", "float", REQUIRED, low=1, high=64, unit="outputs/packet",
               help="Mean number of destinations per packet.")
# Every law gives one destination at mean fanout 1.
FANOUT_LAW = Param("fanout_distribution", "fanout_distribution", "choice", "fixed",
                   choices=("fixed", "binomial", "uniform"),
                   help="Law of the destination-set size (sets uniform given the size).",
                   applies=("fanout", Above(1, open=True)))
CROSSPOINT = Param("crosspoint_cells", "crosspoint_cells", "int", 4, low=1, high=1 << 16, unit="packets",
                   aliases=("q_r",), help="oq-crosspoint: packets per crosspoint buffer.",
                   applies=("arch", ("oq-crosspoint",)))
MC_LOAD = replace(LOAD, unit="packets/slot/input", help="Offered packets per active input per slot, in [0, 1].")
ARRIVALS = Param("arrivals", "arrivals", "choice", "bernoulli", choices=("bernoulli", "poisson"),
                 help="Packets per input per slot: one with probability load, or Poisson with mean load (paper 003).")


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    sw = MulticastSwitch(p["ports"], p["arch"], p["crosspoint_cells"])
    return sw, Traffic(p["load"], arrivals=p["arrivals"], fanout=p["fanout"],
                       fanout_distribution=p["fanout_distribution"], active_inputs=p["inputs"])


def _multicast(p):
    from switchq.solvers import multicast

    r = multicast.saturation_load(p["arch"], p["ports"], p["inputs"], p["fanout"], p["fanout_distribution"],
                                  p["crosspoint_cells"])
    value, kind = r.answer
    return ({"architecture": r.architecture, "n_ports": r.n_outputs, "active_inputs": r.active_inputs,
             "fanout": r.fanout, "fanout_distribution": r.distribution, "crosspoint_cells": r.crosspoint_cells},
            {"saturation_load": value, "saturation_load_kind": kind, "admissible_load": r.admissible_bound,
             "exact": r.exact, "rational": r.rational, "states": r.states, "method": r.method, "source": r.source})


def _check(p):
    Traffic(1.0, fanout=p["fanout"], fanout_distribution=p["fanout_distribution"],
            active_inputs=p["inputs"]).check_ports(p["ports"])


def _chain_case(arch, q):
    return Case("multicast", f"{arch}{f', Q={q}' if arch == 'oq-crosspoint' else ''}, 2x8, fanout 4, saturated",
                {"arch": arch, "ports": 8, "inputs": 2, "fanout": 4, "crosspoint_cells": q, "load": 1.0},
                "throughput", solved("multicast.saturation_load", arch, 8, 2, 4, crosspoint_cells=q), slots=60_000,
                saturated=True)


def _wba_case(m, paper):
    return Case("multicast", f"iq-wba, {m}x8, fanout 4 (uniform 1..7), saturated",
                {"arch": "iq-wba", "ports": 8, "inputs": m, "fanout": 4, "fanout_distribution": "uniform",
                 "load": 1.0}, "throughput",
                lambda: (paper, "published: Prabhakar et al. 1997, quoted in paper 003"), tolerance=0.015,
                slots=60_000, saturated=True,
                why="Paper 003 §3.1 quotes ref. [19] (Prabhakar, McKeown & Ahuja 1997): 0.65 (2 x 8) and 0.22 "
                    "(8 x 8) at mean fanout 4. Two-digit figures read from a plot, with [19]'s fanout law and "
                    "weights not restated: tolerance 0.015 (see tests/test_multicast_sim.py).")


# The solver's admissible_bound, under the name its function has (fanout.admissible_load) and the CLI shows.
_UNITS = {"admissible_load": "packets/slot/input"}

# The exact saturated chain, where it is tractable, against what the twin carries at load 1; elsewhere the answer is
# an upper bound (or an approximation), not a value to compare.
_CHAIN = Compare("saturation_load", "throughput", saturated=True, why="exact lumped chain of the saturated switch",
                 applies=lambda p, r: "" if r.get("exact") else "the answer here is "
                 + str(r.get("saturation_load_kind") or "not exact") + ", not a value to compare")


DECLARATION = Architecture(
    name="multicast", family="switch", order=50,
    sample={"ports": 4, "fanout": 2, "load": 0.3},
    title="Multicast switch",
    summary="multicast on one switch (paper 003): exact saturated chains where small, else the admissible bound; "
            "simulated at any load (default 1: saturated)",
    description="Multicast on a single switch; load and throughput in packets per active input per slot.\n\n"
                "A packet is delivered when its last copy leaves; output_utilization is copies per output per slot.",
    config=(MulticastSwitch,), accepts=(Traffic,), architectures=MULTICAST_ARCHITECTURES,
    params=(ARCH, MC_PORTS, CROSSPOINT), workload=(INPUTS, FANOUT, FANOUT_LAW, MC_LOAD, ARRIVALS), build=build,
    kernel="switchq.validate.arch.multicast",
    metrics=switch_metrics("packets", copies=True), counters=switch_counters("packets"), units=_UNITS,
    labels=latency_per("packet"), stability=switch_stability("packets", "input"),
    table=("throughput", "output_utilization", "mean_latency"),
    examples=("switchq simulate multicast --arch oq-crosspoint --ports 8 --fanout 4 --load 0.2 --json",
              "switchq simulate multicast --arch iq-split --ports 8 --inputs 2 --fanout 4 --load 1.0"),
    answers=(
        Answer("multicast", "Multicast switch: saturation load",
               "multicast on one switch (paper 003): exact saturated chains where small, else the admissible "
               "bound; simulated at any load (default 1: saturated)",
               params=(ARCH, MC_PORTS, INPUTS, FANOUT, FANOUT_LAW, CROSSPOINT,
                       *sim_only(with_default(MC_LOAD, 1.0), ARRIVALS)),
               solve=_multicast, returns=(Solver("multicast.saturation_load"),), check=_check, twin=lambda p: p,
               results=("saturation_load", "saturation_load_kind", "admissible_load", "exact", "rational", "states",
                        "method", "source"), units=_UNITS, table=("saturation_load", "saturation_load_kind"),
               sim_table=("throughput", "output_utilization", "mean_latency"),
               description="Saturation load of a multicast switch, packets per active input per slot (paper 003 "
                           "§2-§3.1).\n\nExact lumped chains for small switches; beyond them iq-split has a labelled "
                           "large-N approximation, and otherwise the answer is the admissible bound "
                           "min(1, N/(M F)), marked as an upper bound (`saturation_load_kind`).",
               examples=("switchq solve multicast --ports 8 --inputs 2 --fanout 4 --crosspoint-cells 1 --json",
                         "switchq solve multicast --arch iq-split --ports 8 --inputs 2 --fanout 4"),
               vary_example="fanout=1:8 --ports 8 --inputs 2", compares=(_CHAIN,)),
    ),
    cases=(*(_chain_case(a, q) for a, q in (("iq-split", 4), ("iq-nosplit", 4), ("oq-crosspoint", 1))),
           *(_wba_case(m, paper) for m, paper in ((2, 0.65), (8, 0.22)))),
    bench=(BenchCase("Multicast 8x8 oq-crosspoint, fanout 4, load 0.2",
                     {"ports": 8, "fanout": 4, "load": 0.2, "crosspoint_cells": 4}, 5e6),
           BenchCase("Multicast 8x8 iq-split, fanout 4, load 0.2", {"arch": "iq-split", "ports": 8, "fanout": 4,
                                                                    "load": 0.2})),
    report=(("multicast", "switchq.validate.reports.multicast"),),
)
