"""The NAMD-like multicast benchmark on a fat tree (paper 003 §4, Figures 17-18).

Simulated as ``namd``: one round in which P/16 senders multicast a message to
about 16 random nodes each, with hardware multicast against point-to-point
messages; the completion time in ns, NIC overheads included (Table 1).
"""

from __future__ import annotations

from switchq.declaration import ROUNDS, Architecture, Metric
from switchq.errors import InputError
from switchq.models.namd import MULTICAST_MODES, NamdRound
from switchq.models.network import FatTreeNetwork
from switchq.params import Above, Param, check_applies

from .fattree import CROSSPOINT, NODES, SWITCH_PORTS

MESSAGE = Param("message", "message_bytes", "size", 8192, low=8, unit="bits", many=True, default_text="1KiB",
                aliases=("message_bytes",),
                help="Bytes per multicast message, with a unit (256B, 4KiB); a comma list gives one row each.")
MULTICAST = Param("multicast", "multicast", "choice", "both", choices=MULTICAST_MODES, many=True,
                  expand=(("both", MULTICAST_MODES),),
                  help="hardware: switches replicate along the spanning tree; software: one message per "
                       "destination; both: a row each.")
SENDERS = Param("senders", "senders", "int", None, low=1, unit="nodes", default_text="nodes/16",
                help="Sending nodes.")
FANOUT = Param("fanout", "fanout", "float", 16.0, low=1, unit="nodes/message", help="Mean destinations per message.")
FANOUT_LAW = Param("fanout_distribution", "fanout_distribution", "choice", "uniform",
                   choices=("fixed", "binomial", "uniform"), help="Law of the destination-set size.",
                   applies=("fanout", Above(1, open=True)))


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    if p["message"] % 8:
        raise InputError("message", p["message"], "a whole number of bytes >= 1 B")
    net = FatTreeNetwork.for_nodes(p["nodes"], p["ports"], crosspoint_cells=p["crosspoint_cells"])
    senders = max(1, net.tree.nodes // 16) if p["senders"] is None else p["senders"]
    return net, NamdRound(p["message"] // 8, p["multicast"], senders, p["fanout"], p["fanout_distribution"])


DECLARATION = Architecture(
    name="namd", family="collective", order=70,
    sample={"ports": 8, "nodes": 16, "message": 2048, "multicast": "hardware", "fanout": 4},
    title="NAMD-like multicast round",
    summary="the NAMD-like benchmark (paper 003 §4): P/16 senders multicast to ~16 random nodes each",
    description="The NAMD-like benchmark (paper 003 §4): P/16 senders multicast to ~16 random nodes each.\n\n"
                "Completion time of one round in ns, with NIC send and receive overheads (Table 1), hardware "
                "multicast against point-to-point messages.",
    config=(FatTreeNetwork,), accepts=(NamdRound,), params=(SWITCH_PORTS, NODES, CROSSPOINT),
    workload=(MESSAGE, MULTICAST, SENDERS, FANOUT, FANOUT_LAW), build=build,
    kernel="switchq.validate.arch.namd",
    metrics=(Metric("completion_ns", "ns", lambda c: c["completion_ns"], "when the last receiver is done"),),
    # Each replication's time, for paired comparisons (hardware vs software multicast on the same draws).
    labels=lambda c: {"completion_ns_by_replication": c["completion_ns"].tolist()},
    units={"levels": "levels", "switches": "switches",
           "bandwidth_bps": "bit/s", "packet_bytes": "B", "channel_delay_ns": "ns",
           "switch_delay_ns": "ns", "asic_hz": "Hz", "nic_send_ns": "ns", "nic_recv_ns": "ns", "packet_ns": "ns",
           "message_bytes": "B", "completion_ns_by_replication": "ns"},
    clock=ROUNDS, json_rows="rows",
    bounded="each replication runs one round of multicasts to its end: no steady state to reach",
    main="completion_ns", table=("message_bytes", "multicast", "completion_ns"),
    vary_example="message=256B,1KiB,4KiB --vary multicast=hardware,software --ports 8 --nodes 64",
    examples=("switchq simulate namd --ports 8 --nodes 256 --message 256B,4KiB",
              "switchq simulate namd --ports 32 --message 1KiB --multicast hardware --json"),
)
