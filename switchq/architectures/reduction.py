"""Reductions with combine units on fat trees (paper 003 §2, §2.1-2.2, §3.2, Figure 16).

Answered as ``reduction``: the exact max-plus completion time over the
buildTree spanning tree with its critical-path breakdown (and the full
machine's closed form); simulated as ``reduction``, event by event, with
members starting up to ``--skew`` apart.
"""

from __future__ import annotations

import re

from switchq.declaration import ROUNDS, Answer, Architecture, Case, Metric
from switchq.errors import InputError
from switchq.models.collective import Reduction, StartSkew
from switchq.models.network import MAX_NODES, FatTree
from switchq.params import Param
from switchq.solved import later, solved


def _members(text, where):
    """``all``, or node numbers and ranges ``A-B`` separated by commas (or a Python list of nodes)."""
    if text is None or (isinstance(text, str) and text.strip() in ("all", "none")):
        return None
    if not isinstance(text, str):
        return [int(x) for x in text]
    allowed = "all, or node numbers and ranges A-B separated by commas, e.g. 0-63,128"
    nodes = []
    for piece in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", piece)
        if not m or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
            raise InputError(where, text, allowed)
        if int(m.group(2) or m.group(1)) >= MAX_NODES:
            raise InputError(where, text, f"node numbers below {MAX_NODES} (and below --nodes)")
        nodes.extend(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
    return nodes


PARAMS = (
    Param("ports", "switch_ports", "int", 8, low=4, high=1024, unit="ports", aliases=("switch_ports", "-k",
                                                                                    "--switch-ports"),
          help="Ports per switch K (the fat tree is a K/2-ary n-tree)."),
    Param("nodes", "nodes", "int", 256, low=2, unit="nodes", help="Nodes: a power of K/2."),
    Param("message", "message_bytes", "size", low=8, unit="bits", many=True, aliases=("message_bytes",),
          help="Bytes each node contributes, with a unit (256B, 4KiB); a comma-separated list gives one row per "
               "size."),
    Param("combine_units", "combine_units", "int", 1, low=1, unit="units/switch",
          help="Combine units per switch r: 1, or r - 1 leaf units over port blocks plus a root."),
    Param("members", "members", "text", None, parser=_members, default_text="all",
          help="Taking part: all, or nodes and ranges (0-63,128)."),
    Param("root", "root", "int", None, low=0, unit="node", default_text="smallest member",
          help="Node that receives the result."),
    Param("bandwidth", "bandwidth_bps", "rate", 10e9, low=0, low_open=True, unit="bit/s", default_text="10Gb/s",
          help="Link rate."),
    Param("packet", "packet_bytes", "size", 2048, low=8, unit="bits", default_text="256B", help="Largest packet."),
    Param("channel_delay", "channel_delay_ns", "time", 2e-8, low=0, unit="s", default_text="20ns",
          help="Propagation per link."),
    Param("switch_delay", "switch_delay_ns", "time", 9e-8, low=0, unit="s", default_text="90ns",
          help="Latency per switch."),
    Param("asic_clock", "asic_hz", "frequency", 250e6, low=0, low_open=True, unit="Hz", default_text="250MHz",
          help="Switch ASIC (combine unit) clock."),
    Param("nic_send", "nic_send_ns", "time", 1.3e-6, low=0, unit="s", default_text="1300ns", help="NIC send overhead."),
    Param("nic_recv", "nic_recv_ns", "time", 1.3e-6, low=0, unit="s", default_text="1300ns",
          help="NIC receive overhead at the root node."),
    Param("bytes_per_cycle", "bytes_per_cycle", "int", 8, low=1, unit="B/cycle",
          help="Combine datapath width (assumed; the paper gives none)."),
    Param("header_cycles", "header_cycles", "int", 4, low=0, unit="cycles",
          help="Combine cycles per packet before its data: header, lookup (assumed)."),
)
SKEW = Param("skew", "skew_ns", "time", 0.0, low=0, unit="s", default_text="0ns",
             help="Each member starts uniformly in [0, skew] (0: every run is the analytic one).")


def _bytes(name, bits):
    if bits % 8:
        raise InputError(name, bits, "a whole number of bytes")
    return bits // 8


def reduction(p) -> Reduction:
    from switchq.models.network import NetworkTiming

    tree = FatTree.for_nodes(p["nodes"], p["ports"])
    timing = NetworkTiming(p["bandwidth"], _bytes("packet", p["packet"]), p["channel_delay"] * 1e9,
                           p["switch_delay"] * 1e9, p["asic_clock"], p["nic_send"] * 1e9, p["nic_recv"] * 1e9)
    return Reduction(tree, _bytes("message", p["message"]), p["combine_units"], p["members"], p["root"], timing,
                     p["bytes_per_cycle"], p["header_cycles"])


def build(p):
    return reduction(p), StartSkew(p["skew"] * 1e9)


def _solve(p):
    from switchq.solvers.reduction import completion_time

    r = reduction(p)
    payload = completion_time(r).to_dict()
    inputs = r.describe()
    return inputs, {k: v for k, v in payload.items() if k not in inputs}


def _bounds(c):
    """The analytic time with every start at 0 (lower) and with every start at the skew (upper)."""
    from switchq.solvers import reduction as analytic

    lower = analytic.completion_time(c.system).completion_time_ns
    skew_ps = int(round(c.workload.skew_ns * analytic.PS_PER_NS))
    return {"lower_bound": lower, "upper_bound": (int(round(lower * analytic.PS_PER_NS)) + skew_ps)
            / analytic.PS_PER_NS}


def _case(ports, units, size):
    analytic = solved("reduction.completion_time", later(Reduction, later(FatTree.for_nodes, 256, ports), size, units),
                      figure="completion_time_ns",
                      method="max-plus recursion over the buildTree spanning tree (solvers.reduction)")
    return Case("reduction", f"256 nodes, {ports}-port, {units} combine unit(s), {size} B, no skew",
                {"ports": ports, "nodes": 256, "combine_units": units, "message": 8 * size}, "completion_time",
                analytic, replications=5,
                why="With every member starting together the event-driven twin must equal the recursion exactly.")


UNITS = {"members": "nodes", "message_bytes": "B",
         "packets": "packets", "packet_bytes": "B", "channel_delay_ns": "ns",
         "switch_delay_ns": "ns", "nic_send_ns": "ns", "nic_recv_ns": "ns", "packet_ns": "ns",
         "completion_time": "ns", "breakdown": "ns", "period": "ns", "bottleneck_packets": "packets",
         "serialization": "ns", "combine_service": "ns", "tree_switches": "switches", "critical_links": "links",
         "switches_by_units_working": "switches", "closed_form": "ns", "skew": "ns", "lower_bound": "ns",
         "upper_bound": "ns"}

DECLARATION = Architecture(
    name="reduction", family="collective", order=80,
    sample={"ports": 8, "nodes": 16, "message": 512, "skew": 1e-7},
    title="Reduction on a fat tree",
    summary="one reduction with combine units over the buildTree spanning tree (paper 003 §3.2, Fig. 16): "
            "exact max-plus completion time (simulated: event by event, with start skew)",
    description="Simulated reduction: event-driven, packet by packet, with start skew; mean and 95% CI, in ns.\n\n"
                "Every replication lies between the analytic time with all starts at 0 (lower_bound) and with all "
                "at the skew (upper_bound).",
    config=(Reduction,), accepts=(StartSkew,), params=PARAMS, workload=(SKEW,), build=build,
    kernel="switchq.validate.arch.reduction",
    metrics=(Metric("completion_time", "ns", lambda c: c["completion_ps"] / 1000,
                    "when the root node holds the result"),),
    units=UNITS, labels=_bounds, clock=ROUNDS,
    bounded="each replication runs one reduction to its end: no steady state to reach",
    main="completion_time", table=("message_bytes", "packets", "completion_time", "lower_bound", "upper_bound"),
    examples=("switchq simulate reduction --switch-ports 32 --message 4KiB --combine-units 5 --skew 500ns "
              "--seed 1 --json",),
    answers=(
        Answer("reduction", "Reduction on a fat tree: completion time",
               "one reduction with combine units over the buildTree spanning tree (paper 003 §3.2, Fig. 16): "
               "exact max-plus completion time (simulated twin: switchq simulate reduction)",
               params=PARAMS, solve=_solve,
               results=("completion_time", "period", "bottleneck", "bottleneck_packets", "combine_service"),
               units=UNITS, main="completion_time", table=("completion_time", "period", "bottleneck"),
               description="Completion time of one reduction on an idle fat tree (paper 003 §2-§3.2, Figure 16), "
                           "in ns.\n\nExact max-plus recursion over packets and combine units on the paper's "
                           "spanning tree, with the critical path's breakdown; for the full machine with one unit "
                           "also the closed form.",
               examples=("switchq solve reduction --switch-ports 32 --nodes 256 --message 256B --combine-units 1 "
                         "--json",
                         "switchq solve reduction --switch-ports 8 --message 8B,64B,256B,1KiB,4KiB"),
               vary_example="message=8B,256B,4KiB --vary ports=8,32"),
    ),
    cases=tuple(_case(*c) for c in ((8, 1, 4096), (32, 1, 4096), (32, 5, 4096), (32, 1, 64))),
)
