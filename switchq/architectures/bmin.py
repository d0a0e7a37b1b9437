"""Flit-level switches in bidirectional MINs: FIFO, SAFC, DAMQ, HIPIQS and central buffer (paper 000 §2-§5).

Simulated as ``bmin`` by the flit-level network kernel
(:mod:`switchq.validate.arch.flit`); answered as ``bmin`` (zero-load latency
and the channel-load bound of the pattern under turnaround routing, §4's
crossbar cost), ``hol-flit`` (FIFO head-of-line saturation of one switch) and
``buffer-sharing`` (complete sharing vs partitioning of an input buffer).
"""

from __future__ import annotations

from switchq.declaration import CYCLES, Answer, Architecture, BenchCase, Case, Compare, Counter, Metric
from switchq.models.flit import (ARBITRATIONS, BUFFER_ORGS, CENTRAL_ADMISSIONS, FLIT_ARRIVALS, FLIT_PATTERNS,
                                 CROSSPOINT_STORAGES, FIFO_ROUTINGS, UNIFORM_OVER, UP_SELECTS, FlitNetwork, FlitSwitch, MessageTraffic)
from switchq.params import REQUIRED, Param, check_applies, sim_only
from switchq.solved import later, solved

TOPOLOGY = Param("topology", "topology", "choice", "bmin", choices=("bmin", "boards", "crossbar"),
                 help="bmin: a k-ary n-tree of --ports-port switches (16 nodes: 2 stages, 64: 3); boards: the "
                      "SP2's 16-node boards cabled to each other directly (32-80 nodes); crossbar: one switch, a "
                      "node on each port.")
NODES = Param("nodes", "nodes", "int", 16, low=2, high=4096, unit="nodes", aliases=("-P",),
              help="Nodes: a power of ports/2 on a BMIN (16, 64); 32, 48, 64 or 80 on SP2 boards; the port count on a "
                   "crossbar.")
PORTS = Param("ports", "switch_ports", "int", 8, low=2, high=64, unit="ports", aliases=("-k",),
              help="Ports per switch k (8 in paper 000); also the chunk size in flits.")
ORG = Param("buffer_org", "buffer_org", "choice", "hipiqs", choices=BUFFER_ORGS, aliases=("org",),
            help="Buffer organisation: fifo, safc (crosspoint partitions), damq (one read port), hipiqs, central.")
BUFFER = Param("buffer_flits", "buffer_flits", "int", 640, low=2, high=1 << 20, unit="flits", aliases=("buffer",),
               help="Input buffer per port in flits (320, 640, 1280 in the paper); central: the same total per "
                    "switch.")
XP = Param("crosspoint_flits", "crosspoint_flits", "int", None, low=1, high=1 << 16, unit="flits",
           default_text="2 x ports", help="hipiqs: FIFO unit per input/output pair.",
           applies=("buffer_org", ("hipiqs",)))
XP_STORAGE = Param("crosspoint_storage", "crosspoint_storage", "choice", "extra", choices=CROSSPOINT_STORAGES,
                   help="hipiqs: FIFO units on top of --buffer-flits (extra: beside the input buffer, paper 000 "
                        "§3.2; §5.1 equalises the input buffers) or out of it (within).",
                   applies=("buffer_org", ("hipiqs",)))
CENTRAL_IN = Param("central_input_flits", "central_input_flits", "int", None, low=1, high=1 << 20, unit="flits",
                   default_text="2 x ports", help="central: each input's small FIFO (the rest is the central buffer).",
                   applies=("buffer_org", ("central",)))
BYPASS = Param("bypass_cycles", "bypass_cycles", "int", 2, low=1, high=64, unit="cycles",
               help="Header through a switch when nothing waits ahead of it (Fig. 5, Pipe 1).")
BUFFERED = Param("buffered_cycles", "buffered_cycles", "int", 6, low=1, high=64, unit="cycles",
                 help="Header through a switch when stored behind another packet (Fig. 5, Pipe 3).")
LINK_DELAY = Param("link_delay", "link_delay", "int", 1, low=1, high=1024, unit="cycles",
                   help="Cycles a flit spends on a link.")
CREDIT_DELAY = Param("credit_delay", "credit_delay", "int", 0, low=0, high=1024, unit="cycles",
                     help="Cycles before a place freed in a buffer can be used by the link feeding it (a credit's "
                          "return trip); 0: known at once (paper 000 is silent).")
ROUTING_AGE = Param("routing_age", "routing_age", "int", 0, low=0, high=1024, unit="cycles",
                    help="Age of the queue lengths the adaptive choice of the next switch's queue reads; 0: as they "
                         "are in the same cycle (paper 000 is silent).",
                    applies=(("buffer_org", ("safc", "damq", "hipiqs")), ("topology", ("bmin", "boards"))))
UP_SHARE = Param("up_share", "up_share", "float", 0.5, low=0, high=1, low_open=True, high_open=True, unit="1",
                 help="central: share of the central buffer messages going up may hold (deadlock avoidance).",
                 applies=("buffer_org", ("central",)))
ADMISSION = Param("central_admission", "central_admission", "choice", "packet", choices=CENTRAL_ADMISSIONS,
                  help="central: a packet enters the shared buffer when all the chunks it needs are free, or chunk "
                       "by chunk.", applies=("buffer_org", ("central",)))
# Only where a route may go up several ports (not on one crossbar), and only where the queue is chosen
# (fifo and central keep one queue per input: fifo_routing picks fifo's up port).
UP_SELECT = Param("up_select", "up_select", "choice", "input", choices=UP_SELECTS,
                  help="Adaptive up port: fewest flits queued for it in this input's buffer (input) or at the "
                       "whole switch (output).",
                  applies=(("buffer_org", ("safc", "damq", "hipiqs")), ("topology", ("bmin", "boards"))))
FIFO_ROUTING = Param("fifo_routing", "fifo_routing", "choice", "head", choices=FIFO_ROUTINGS,
                     help="fifo: pick the up port at the head of the queue (any free one), on arrival, or by the "
                          "destination's digit (a non-adaptive BMIN).",
                     applies=(("buffer_org", ("fifo",)), ("topology", ("bmin", "boards"))))
ARBITRATION = Param("arbitration", "arbitration", "choice", "rr", choices=ARBITRATIONS,
                    help="How an output picks among inputs: round-robin pointer, or a random input.")
FLIT_BYTES = Param("flit_bytes", "flit_bytes", "int", 2, low=1, high=1024, unit="B",
                   help="Flit (link) width (2 bytes in paper 000); crossbar cost in bits.")
SWITCH_PARAMS = (TOPOLOGY, NODES, PORTS, ORG, BUFFER, XP, XP_STORAGE, CENTRAL_IN, BYPASS, BUFFERED, LINK_DELAY,
                 *sim_only(CREDIT_DELAY, ROUTING_AGE), UP_SHARE, ADMISSION, UP_SELECT, FIFO_ROUTING, ARBITRATION,
                 FLIT_BYTES)

LOAD = Param("load", "load", "float", REQUIRED, low=0, high=1, unit="flits/cycle/node", aliases=("-p",),
             help="Applied load: flits injected per node per cycle, a share of the injection link, in [0, 1].")
MESSAGE = Param("message_flits", "message_flits", "int", 64, low=1, high=1 << 16, unit="flits",
                aliases=("message", "-m"), help="Message length M in flits (64, 128, 256 in the paper).")
PACKET = Param("packet_flits", "packet_flits", "int", None, low=1, high=1 << 16, unit="flits",
               help="Cut messages into packets of this many flits (64 in paper 000 §5.4); none: one packet.")
TRAFFIC = Param("traffic", "pattern", "choice", "uniform", choices=FLIT_PATTERNS, aliases=("pattern", "--pattern"),
                help="Destinations: uniform, bitrev, transpose (fixed points send to themselves).")
ARRIVALS = Param("arrivals", "arrivals", "choice", "bernoulli", choices=FLIT_ARRIVALS,
                 help="Message starts per node and cycle: Bernoulli or Poisson, mean load / M.")
OVER = Param("uniform_over", "uniform_over", "choice", "others", choices=UNIFORM_OVER,
             help="Uniform destinations over the other nodes, or all (the sender included, Karol's model).",
             applies=("traffic", ("uniform",)))
TRAFFIC_PARAMS = (LOAD, MESSAGE, PACKET, TRAFFIC, ARRIVALS, OVER)

UNITS = {"switches": "switches", "central_flits": "flits"}


def _network(p) -> FlitNetwork:
    switch = FlitSwitch(p["ports"], p["buffer_org"], p["buffer_flits"], p["flit_bytes"], p["bypass_cycles"],
                        p["buffered_cycles"], p["crosspoint_flits"], p["central_input_flits"], p["up_share"],
                        p["arbitration"], p["central_admission"], p["up_select"],
                        p["fifo_routing"], p["crosspoint_storage"])
    if p["topology"] == "crossbar":
        return FlitNetwork.single(p["nodes"], switch, p["link_delay"], p["credit_delay"])
    if p["topology"] == "boards":
        return FlitNetwork.sp2(p["nodes"], switch, p["link_delay"], p["credit_delay"], p["routing_age"])
    return FlitNetwork.bmin(p["nodes"], switch, p["link_delay"], p["credit_delay"], p["routing_age"])


def _traffic(p) -> MessageTraffic:
    return MessageTraffic(p["load"], p["message_flits"], p["packet_flits"], p["arrivals"], p["traffic"],
                          p["uniform_over"])


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    net = _network(p)
    traffic = _traffic(p)
    net.check_traffic(traffic)
    return net, traffic


def _per_node(name):
    return lambda c: c[name] / (c.system.nodes * c.slots)


def _stability(c):
    """Growth of the flits offered and not yet received (injection queues, buffers, links) against 1 % of
    the flits offered, plus a message per node of noise; and of those to each destination node, plus one
    message."""
    from switchq.validate.harness import Backlog

    m = c.workload.message_flits
    return Backlog(c["backlog_end"] - c["backlog_start"], c["m_flits_offered"], c.system.nodes * m, "flits",
                   "destination node", m, granule=m)


def _bmin(p):
    from switchq.solvers import bmin

    net = _network({**DEFAULTS, **p})
    traffic = MessageTraffic(p["load"] if p["load"] is not None else 0.0, p["message_flits"], p["packet_flits"],
                             pattern=p["traffic"], uniform_over=p["uniform_over"])
    net.check_traffic(traffic)
    s = net.switch
    inputs = {"topology": net.describe()["topology"], "nodes": net.nodes, "switch_ports": s.ports,
              "buffer_org": s.buffer_org, "message_flits": traffic.message_flits, "traffic": traffic.pattern,
              "bypass_cycles": s.bypass_cycles, "link_delay": net.link_delay}
    results = {"zero_load_latency": bmin.zero_load_latency(net, traffic),
               "saturation_bound": bmin.saturation_bound(net, traffic),
               "crossbar_cost_bits": bmin.crossbar_cost(s.ports, 8 * s.flit_bytes, s.buffer_org),
               "method": "zero load: h bypass pipelines + (h + 1) links + M - 1 flits, averaged over the pattern's "
                         "routes (h = 2 l + 1 switches, l the least common ancestor's level); bound: 1 / heaviest "
                         "channel load with each flow spread evenly over its up ports; cost: paper 000 §4",
               "source": "Sivaram, Stunkel & Panda, HIPIQS (paper 000) §3.4 Fig. 5, §4, §5.1"}
    return inputs, results


def _hol_flit(p):
    from switchq.solvers import bmin

    r = bmin.fifo_saturation(p["ports"])
    return ({"switch_ports": p["ports"], "message_flits": p["message_flits"]},
            {"saturation_throughput": r.saturation_throughput, "exact": r.exact,
             "method": ("exact: Karol's saturated chain with single-flit messages" if p["message_flits"] == 1 else
                        "approximation: Karol's saturated chain, as if every output freed at once (message-slotted);"
                        " the asynchronous cut-through switch measures within 0.003 of it for M = 4, 16, 64 on "
                        "8 ports (switchq validate bmin)"),
             "source": bmin.KAROL})


def _sharing(p):
    from switchq.solvers import bmin

    places = bmin.message_places(p["buffer_flits"], p["message_flits"])
    r = bmin.buffer_sharing(p["ports"], p["rho"], places)
    return ({"switch_ports": p["ports"], "rho": p["rho"], "buffer_flits": p["buffer_flits"],
             "message_flits": p["message_flits"], "places": places}, r)


def _zero_load_case(org, nodes, traffic="uniform"):
    analytic = solved("bmin.zero_load_latency", later(_network, {**DEFAULTS, "nodes": nodes, "buffer_org": org}),
                      MessageTraffic(0.002, 64, pattern=traffic), method="bmin.zero_load_latency")
    return Case("bmin", f"{org}, {nodes} nodes, {traffic}, 64-flit messages, load 0.002: zero-load latency",
                {"nodes": nodes, "buffer_org": org, "traffic": traffic, "load": 0.002}, "mean_latency", analytic,
                tolerance=0.6, slots=200_000,
                why="At load 0.002 a message meets another on its path rarely: measured +0.1 to +0.4 cycles over "
                    "the zero-load figure; 0.6 cycles allows that queueing.")


def _karol_case(m):
    """FIFO crossbar against Karol's chain: exact with 1-flit messages, the message-slotted approximation beyond."""
    exact = m == 1
    analytic = solved("hol.saturation_throughput", 8, method="Karol's exact chain, N = 8" if exact else
                      "Karol's chain, message-slotted approximation")
    return Case("bmin", f"fifo crossbar 8x8, {m}-flit messages, uniform over all, random arbitration, saturated",
                {"topology": "crossbar", "nodes": 8, "buffer_org": "fifo", "message_flits": m, "load": 1.0,
                 "uniform_over": "all", "arbitration": "random"}, "throughput", analytic,
                tolerance=0.0 if exact else 0.005, slots=60_000 if exact else 100_000, saturated=True,
                why="Exact: with one-flit messages the flit switch is Karol's slotted FIFO switch (the pipeline "
                    "delays every cell alike)." if exact else
                    "hol-flit's approximation for M > 1 (outputs free at different times, not together): measured "
                    "0.6177 +- 0.0017 (M = 4), 0.6202 +- 0.0019 (16), 0.6154 +- 0.011 (64) against 0.6184 over 4 x "
                    "100,000 cycles; tolerance 0.005.")


DEFAULTS = {p.name: p.default for p in SWITCH_PARAMS + TRAFFIC_PARAMS if p.default is not REQUIRED}

RHO = Param("rho", "rho", "float", 0.5, low=0, high=10, low_open=True, unit="1",
            help="Load of each output's queue (M/M/1) in the buffer-sharing model.")

# The zero-load latency holds where messages rarely meet: at load 0.002, +0.1 to +0.4 cycles measured (the
# validation rows' tolerance).
_ZERO_LOAD = Compare("zero_load_latency", "mean_latency", tolerance=0.6,
                     why="exact at zero load; at load 0.002 messages meet rarely (+0.1 to +0.4 cycles measured)",
                     applies=lambda p, r: "" if (p.get("load") or 1.0) <= 0.002 else
                     "the zero-load latency holds only where messages rarely meet (load 0.002 or less)")


DECLARATION = Architecture(
    name="bmin", family="network", order=65, clock=CYCLES, size="nodes",
    sample={"nodes": 16, "load": 0.5, "message_flits": 16, "buffer_flits": 160},
    title="Flit-level switches in a BMIN",
    summary="flit-level cut-through BMIN (paper 000): fifo, safc, damq, hipiqs, central-buffer switches",
    description="Flit-level cut-through network of k-port switches (paper 000, HIPIQS): a BMIN (k/2-ary n-tree, "
                "turnaround routing, adaptive up) or one crossbar, with FIFO, SAFC, DAMQ, HIPIQS or SP2-style "
                "central-buffer switches compared at equal storage.\n\nLoad and throughput are flits per node per "
                "cycle as a share of the injection link (applied and received load, as the paper plots them); "
                "mean_latency is in cycles from a message's creation to its last flit's arrival; runs count clock "
                "cycles (--cycles, --warmup).",
    config=(FlitNetwork,), accepts=(MessageTraffic,), params=SWITCH_PARAMS, workload=TRAFFIC_PARAMS, build=build,
    kernel="switchq.validate.arch.flit",
    metrics=(Metric("throughput", "flits/cycle/node", _per_node("m_flits_received"),
                    "received load: flits reaching the nodes per node per cycle", bounds=(0.0, 1.0)),
             Metric("applied_load", "flits/cycle/node", _per_node("m_flits_offered"),
                    "flits offered per node per cycle while measuring", bounds=(0.0, 1.0)),
             Metric("carried_share", "1", lambda c: c["m_flits_received"] / c["m_flits_offered"],
                    "flits received over flits offered while measuring", bounds=(0.0, 1.0)),
             Metric("mean_latency", "cycles", lambda c: c["m_latency_sum"] / c["m_latency_count"],
                    "cycles from a message's creation (injection queueing included) to its last flit's arrival"),
             Metric("mean_packet_latency", "cycles", lambda c: c["m_packet_latency_sum"] / c["m_packets"],
                    "the same per packet (differs from mean_latency when messages are packetised)")),
    counters=(Counter("arrived", "messages"), Counter("delivered", "messages"), Counter("queued", "messages"),
              Counter("max_held", "flits", "max"), Counter("deadlock", "runs")),
    units=UNITS, stability=_stability,
    table=("throughput", "mean_latency", "unstable"),
    vary_example="load=0.1:0.9:0.1 --vary buffer_org=fifo,hipiqs,central --cycles 20000",
    examples=("switchq simulate bmin --nodes 16 --buffer-org hipiqs --message-flits 64 --buffer-flits 640 "
              "--traffic uniform --load 0.6 --cycles 20000 -r 4 --json",
              "switchq simulate bmin --nodes 16 --buffer-org central --message-flits 128 --load 0.5 --cycles 20000"),
    answers=(
        Answer("bmin", "Flit-level BMIN: zero-load latency and channel-load bound",
               "zero-load message latency and the channel-load saturation bound of a BMIN or crossbar (paper 000)",
               params=(TOPOLOGY, NODES, PORTS, ORG, BYPASS, LINK_DELAY, FLIT_BYTES, MESSAGE, PACKET, TRAFFIC, OVER,
                       Param("load", "load", "float", None, low=0, high=1, unit="flits/cycle/node",
                             help="Applied load (for the simulated twin of a sweep; not used analytically)."),
                       *sim_only(BUFFER, XP, XP_STORAGE, CENTRAL_IN, BUFFERED, UP_SHARE, ADMISSION, UP_SELECT, FIFO_ROUTING,
                                 ARBITRATION, ARRIVALS, CREDIT_DELAY, ROUTING_AGE)),
               solve=_bmin, twin=lambda p: {**p, "load": 0.5 if p["load"] is None else p["load"]},
               compares=(_ZERO_LOAD,),
               results=("zero_load_latency", "saturation_bound", "crossbar_cost_bits", "method", "source"),
               units={**UNITS, "zero_load_latency": "cycles", "saturation_bound": "flits/cycle/node",
                      "crossbar_cost_bits": "crosspoint-bits"},
               main="zero_load_latency", table=("zero_load_latency", "saturation_bound", "crossbar_cost_bits"),
               description="Zero-load latency of a message (pipeline depths, hops, message length) and the "
                           "channel-load bound on saturation throughput for the traffic pattern under turnaround "
                           "routing, with §4's crossbar cost of the buffer organisation.",
               examples=("switchq solve bmin --nodes 16 --message-flits 64 --traffic uniform --json",
                         "switchq solve bmin --nodes 64 --message-flits 128 --traffic bitrev"),
               vary_example="message_flits=64,128,256 --vary nodes=16,64"),
        Answer("hol-flit", "FIFO input queuing with multi-flit messages: HOL saturation",
               "FIFO head-of-line saturation of one flit-level switch (Karol's chain; exact for 1-flit messages)",
               params=(PORTS, MESSAGE), solve=_hol_flit,
               results=("saturation_throughput", "exact", "method", "source"),
               units={"saturation_throughput": "flits/cycle/node"},
               main="saturation_throughput", table=("saturation_throughput",),
               description="Saturation throughput of a k-port FIFO input-queued switch under uniform traffic "
                           "(destinations over every output): Karol's saturated chain, exact for single-flit "
                           "messages; for M-flit messages the message-slotted approximation.",
               examples=("switchq solve hol-flit --ports 8 --message-flits 1 --json",),
               vary_example="ports=2:16"),
        Answer("buffer-sharing", "Shared vs partitioned input buffer (Kamoun & Kleinrock)",
               "blocking and occupancy of an input buffer shared by k output queues vs split among them",
               params=(PORTS, BUFFER, MESSAGE, RHO), solve=_sharing,
               results=("blocking_shared", "blocking_partitioned", "occupancy_shared", "occupancy_partitioned",
                        "places_per_queue", "method", "source"),
               units={"places": "messages", "blocking_shared": "1", "blocking_partitioned": "1",
                      "occupancy_shared": "messages", "occupancy_partitioned": "messages",
                      "places_per_queue": "messages"},
               main="blocking_shared", table=("blocking_shared", "blocking_partitioned"),
               description="Complete sharing (DAMQ, HIPIQS) vs complete partitioning (SAFC) of an input buffer of "
                           "buffer/message places among k output queues, each an M/M/1 of load rho (Kamoun & "
                           "Kleinrock 1980): blocking probability and mean occupancy.",
               examples=("switchq solve buffer-sharing --ports 8 --buffer-flits 640 --message-flits 64 --rho 0.5",),
               vary_example="message_flits=32,64,128,256 --buffer-flits 640"),
    ),
    cases=(_zero_load_case("hipiqs", 16), _zero_load_case("fifo", 16), _zero_load_case("central", 64, "bitrev"),
           _karol_case(1), _karol_case(16)),
    bench=(BenchCase("BMIN 16 nodes, HIPIQS, 64-flit messages, uniform load 0.8",
                     {"nodes": 16, "load": 0.8, "buffer_org": "hipiqs"}, 2e7, 5e5),
           BenchCase("BMIN 64 nodes, central buffer, 64-flit messages, uniform load 0.8",
                     {"nodes": 64, "load": 0.8, "buffer_org": "central"}, None, 5e5, scale=0.25)),
    report=(("hipiqs", "switchq.validate.reports.hipiqs"),),
)
