"""Fat trees (k-ary n-trees) of crosspoint-buffered output-queued switches with credits (paper 003 §2-§4).

Simulated as ``fattree``, packet by packet (Table 1 timing): permutations and
uniform traffic, or multicast replicated along the switches' spanning trees.
"""

from __future__ import annotations

from dataclasses import replace

from switchq.declaration import Architecture, BenchCase, Case, Counter, Metric
from switchq.models.network import UP_ROUTINGS, FatTreeNetwork
from switchq.models.traffic import PERMUTATIONS, Traffic
from switchq.params import Above, Param, check_applies
from switchq.solved import solved

from ._shared import LOAD

SWITCH_PORTS = Param("ports", "switch_ports", "int", 32, low=4, high=64, unit="ports",
                     aliases=("switch_ports", "-k"),
                     help="Ports per switch (8 and 32 in paper 003); half go down, half up.")
NODES = Param("nodes", "nodes", "int", 256, low=2, unit="nodes", aliases=("-P",),
              help="Nodes: a power of ports/2 (e.g. 256).")
CROSSPOINT = Param("crosspoint_cells", "crosspoint_cells", "int", 4, low=1, high=64, unit="packets",
                   help="Packet buffers per crosspoint (paper 003: 2 or 4).")
UP_ROUTING = Param("up_routing", "up_routing", "choice", "adaptive", choices=UP_ROUTINGS,
                   help="Up port: most credits; random among those with a credit; fixed at the source (random "
                        "route, or d-mod-k on the destination).")
PATTERN = Param("traffic", "pattern", "choice", "uniform", choices=("uniform",) + PERMUTATIONS,
                aliases=("pattern", "--pattern"),
                help="Point-to-point destination pattern (uniform for multicast).")
NET_LOAD = replace(LOAD, unit="packets/slot/node", help="Offered packets per node per slot, in [0, 1].")
FANOUT = Param("fanout", "fanout", "float", 1.0, low=1, unit="nodes/packet",
               help="Mean destinations per packet; > 1 sends multicast over the switches' spanning trees.")
FANOUT_LAW = Param("fanout_distribution", "fanout_distribution", "choice", "uniform",
                   choices=("fixed", "binomial", "uniform"),
                   help="Law of the destination-set size (sets uniform given the size).",
                   applies=("fanout", Above(1, open=True)))


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    net = FatTreeNetwork.for_nodes(p["nodes"], p["ports"], crosspoint_cells=p["crosspoint_cells"],
                                   up_routing=p["up_routing"])
    multicast = p["fanout"] != 1.0
    return net, Traffic(p["load"], pattern=p["traffic"], fanout=p["fanout"],
                        fanout_distribution=p["fanout_distribution"] if multicast else "fixed")


def _per_node(name):
    return lambda c: c[name] / (c.system.tree.nodes * c.slots)


def _latency_ns(value, c):
    timing = c.system.timing
    return value * timing.packet_ns + timing.nic_send_ns + timing.nic_recv_ns


def _stability(c):
    """Growth of the copies owed and not yet delivered, wherever they wait (NICs, crosspoint buffers, links),
    against 1 % of the copies offered plus one per node of noise; and of those owed to each destination node,
    plus one."""
    from switchq.validate.harness import Backlog

    return Backlog(c["backlog_end"] - c["backlog_start"], c["m_copies_owed"], c.system.tree.nodes, "copies",
                   "destination node", 1)


def _route_case(ports):
    net = FatTreeNetwork.for_nodes(256, ports)
    analytic = solved("fattree.mean_route_links", net.tree, scale=net.timing.link_delay_slots,
                      method="mean shortest route E[2(L+1)] (solvers.fattree.mean_route_links)")
    return Case("multicast", f"fat tree 256 nodes, {ports}-port, uniform load 0.01",
                # 20,000 slots: the fewest the latency trend is calibrated for (it must judge the run stable).
                {"ports": ports, "nodes": 256, "load": 0.01}, "mean_latency", analytic, tolerance=0.05, slots=20_000,
                why="Load 0.01 still queues a little: measured +0.019 (8-port) and +0.013 slots (32-port) over the "
                    "zero-load figure, growing ~linearly with load; tolerance 0.05 slots.")


DECLARATION = Architecture(
    name="fattree", family="network", order=60, size="nodes",
    sample={"ports": 8, "nodes": 16, "load": 0.5},
    title="Fat tree of crosspoint-buffered OQ switches",
    summary="packet-level fat-tree network (paper 003 §3, Table 1 timing): permutations or multicast",
    description="A fat tree of crosspoint-buffered output-queued switches with credits (paper 003 §3, Table 1 "
                "timing).\n\nLoad and throughput are packets (256 B, one slot = 204.8 ns) per node per slot; a "
                "multicast packet counts when its last copy arrives, and output_utilization is copies arriving per "
                "node per slot. mean_latency is in slots from generation to arrival; mean_latency_ns adds the NIC "
                "overheads.",
    config=(FatTreeNetwork,), accepts=(Traffic,), params=(SWITCH_PORTS, NODES, CROSSPOINT, UP_ROUTING),
    workload=(PATTERN, NET_LOAD, FANOUT, FANOUT_LAW), build=build,
    kernel="switchq.validate.arch.network",
    metrics=(Metric("throughput", "packets/slot/node", _per_node("m_delivered"),
                    "packets delivered per node per slot (a multicast packet when its last copy arrives)"),
             Metric("output_utilization", "copies/slot/node", _per_node("m_copies"), "copies reaching each node"),
             Metric("mean_latency", "slots", lambda c: c["m_latency_sum"] / c["m_latency_count"],
                    "slots from generation (NIC queueing included) to arrival at the last destination"),
             Metric("mean_latency_ns", "ns", None, "mean_latency with the slot time and the NIC send and receive "
                                                   "overheads", derived=("mean_latency", _latency_ns))),
    counters=(Counter("arrived", "packets"), Counter("delivered", "packets"), Counter("queued", "packets")),
    units={"levels": "levels", "switches": "switches",
           "bandwidth_bps": "bit/s", "packet_bytes": "B", "channel_delay_ns": "ns",
           "switch_delay_ns": "ns", "asic_hz": "Hz", "nic_send_ns": "ns", "nic_recv_ns": "ns", "packet_ns": "ns"},
    stability=_stability,
    table=("throughput", "mean_latency", "mean_latency_ns", "unstable"),
    vary_example="load=0.1:0.9:0.2 --vary traffic=uniform,complement --ports 8 --nodes 64 --slots 3000",
    examples=("switchq simulate fattree --ports 32 --nodes 256 --traffic complement --load 0.9 --json",
              "switchq simulate fattree --ports 8 --nodes 256 --fanout 8 --load 0.1 --slots 5000"),
    cases=(_route_case(8), _route_case(32)),
    bench=(BenchCase("Fat tree 256 nodes, 8-port switches (4 levels), uniform load 0.8",
                     {"ports": 8, "nodes": 256, "load": 0.8}, 2e5, scale=0.05),
           BenchCase("Fat tree 256 nodes, 32-port switches (2 levels), uniform load 0.8",
                     {"ports": 32, "nodes": 256, "load": 0.8}, 2e5, scale=0.05),
           BenchCase("Fat tree 256 nodes, 8-port switches, multicast fanout 8, load 0.1",
                     {"ports": 8, "nodes": 256, "load": 0.1, "fanout": 8}, scale=0.05)),
)
