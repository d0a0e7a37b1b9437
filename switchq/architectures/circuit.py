"""Circuit-switched HIPPI LANs (paper 001, Ma & Steenkiste, §2-§7): one circuit per packet.

Simulated as ``circuit`` (event by event, saturated adapters, FIFO /
window / logical-channel scheduling, distributed or central control, set-up
overheads, fixed / uniform / bimodal sizes, packet trains, file servers);
answered as ``circuit`` (:mod:`switchq.solvers.circuit`: the slotted chains
for the ideal switch with fixed sizes, renewal-reward without conflicts,
the variable-size FIFO limit, an overhead approximation, logical channels'
100 %, and "no analytic model" elsewhere).

The link rate defaults to 800 Mbit/s: with the paper's 1 us clock a 100-byte
short packet is exactly 1 us there (0.5 us at 1600), and the overhead
figures need it (``switchq report circuit`` runs both). The clock is the
paper's too (``--resolution 1us``): every duration in whole microseconds,
so at 1600 Mbit/s a 100-byte packet is held 1 us; ``--resolution ns``
keeps nanoseconds.
"""

from __future__ import annotations

from switchq.declaration import Answer, Architecture, BenchCase, Case, Compare, Counter, Metric, simulated_seconds
from switchq.errors import InputError
from switchq.models.circuit import (CLAIMS, CONTROL, DESTINATIONS, POINTERS, RESOLUTIONS, SCHEDULING, SIZES,
                                    CircuitSwitch, CircuitTraffic)
from switchq.params import Above, Param, check_applies
from switchq.solved import Solver, later, solved
from switchq.solvers.figures import split

from ._shared import with_default, PORTS

SYSTEM = (
    with_default(PORTS, PORTS.default, low=2, high=1024),
    Param("scheduling", "scheduling", "choice", "fifo", choices=SCHEDULING,
          help="Adapter scheduling: fifo, window (first W packets, round robin), channels (L queue heads)."),
    Param("window", "window", "int", 1, low=1, high=1024, unit="packets", aliases=("-w",),
          help="Window W: packets of the FIFO the adapter tries (scheduling window).",
          applies=("scheduling", ("window",))),
    Param("channels", "channels", "int", 1, low=1, high=1024, unit="channels",
          help="Logical channels L (scheduling channels).", applies=("scheduling", ("channels",))),
    Param("control", "control", "choice", "distributed", choices=CONTROL,
          help="distributed: adapters set circuits up and may be rejected; central: never rejected."),
    Param("ideal", "ideal", "flag", False, help="No overhead at all (the paper's ideal switch)."),
    Param("select_time", "select_time", "time", None, low=0, high=1, unit="s", default_text="2us (0 with --ideal)",
          help="Time to select a packet, per attempt (central control: its one charge per packet)."),
    Param("setup_time", "setup_time", "time", None, low=0, high=1, unit="s", default_text="5us (0 with --ideal)",
          help="Time of one set-up attempt, successful or not (distributed control).",
          applies=("control", ("distributed",))),
    Param("link_rate", "link_rate", "rate", 800e6, low=1e3, high=1e13, unit="bit/s", default_text="800Mb/s",
          help="HIPPI link rate (800 or 1600 Mbit/s)."),
    Param("pool", "pool", "int", None, low=1, high=4096, unit="packets",
          help="Channels: packets the adapter holds, each in its destination's channel (none: every channel "
               "always backlogged).", applies=("scheduling", ("channels",))),
    # A FIFO adapter tries its head only; central control never sets a circuit up, so it has no claim.
    Param("pointer", "pointer", "choice", "next", choices=POINTERS,
          help="Round robin after a packet is sent: next (the packet/channel after it) or head.",
          applies=("scheduling", ("window", "channels"))),
    Param("claim", "claim", "choice", "request", choices=CLAIMS,
          help="When a set-up holds the output: request (once selected, through the set-up) or connect.",
          applies=("control", ("distributed",))),
    Param("resolution", "resolution", "choice", "1us", choices=RESOLUTIONS,
          help="Clock: 1us (the paper's simulator: durations rounded to whole microseconds, a tick's events one "
               "at a time in random order) or ns (circuits ending at the same nanosecond matched as one batch: "
               "the slotted switch with fixed sizes)."),
)
SIZE_HELP = " Size with a unit (2000B, 32KB)."
BIMODAL = ("bimodal", "train")     # the size laws with short and long packets
TRAFFIC = (
    Param("sizes", "sizes", "choice", "fixed", choices=SIZES, help="Packet size law."),
    Param("size", "size", "size", 16000, low=8, high=8 << 24, unit="B", default_text="2000B",
          help="Fixed packet size." + SIZE_HELP, applies=("sizes", ("fixed",))),
    Param("size_min", "size_min", "size", 0, low=0, high=8 << 24, unit="B", default_text="0B",
          help="Uniform sizes: smallest." + SIZE_HELP, applies=("sizes", ("uniform",))),
    Param("size_max", "size_max", "size", 256000, low=8, high=8 << 24, unit="B", default_text="32000B",
          help="Uniform sizes: largest." + SIZE_HELP, applies=("sizes", ("uniform",))),
    Param("short", "short", "size", 800, low=8, high=8 << 24, unit="B", default_text="100B",
          help="Bimodal: short packets." + SIZE_HELP, applies=("sizes", BIMODAL)),
    Param("long", "long", "size", 128000, low=8, high=8 << 24, unit="B", default_text="16000B",
          help="Bimodal: long packets." + SIZE_HELP, applies=("sizes", BIMODAL)),
    Param("long_bytes", "long_bytes", "float", 0.9, low=0, high=1, unit="1",
          help="Bimodal: fraction of the bytes in long packets (BinL), in [0, 1].", applies=("sizes", BIMODAL)),
    Param("train", "train", "int", 8, low=1, high=1024, unit="packets",
          help="sizes train: a long packet goes as this many back-to-back packets to one destination.",
          applies=("sizes", ("train",))),
    # File servers pick their own destinations: servers send to clients, clients to servers or other clients.
    Param("destinations", "destinations", "choice", "others", choices=DESTINATIONS,
          help="Uniform over the other nodes (the paper) or over all N (Karol's switch).",
          applies=("file_servers", (0,))),
    Param("file_servers", "file_servers", "int", 0, low=0, high=1023, unit="nodes",
          help="Nodes 0..F-1 are file servers (paper 001 §7.2); 0: uniform traffic."),
    Param("server_share", "server_share", "float", 0.8, low=0, high=1, unit="1",
          help="File servers: share of a client's bytes sent to the servers.", applies=("file_servers", Above(1))),
    Param("server_long_bytes", "server_long_bytes", "float", 0.98, low=0, high=1, unit="1",
          help="File servers: BinL of the traffic to and from servers (client-client: --long-bytes).",
          applies=(("file_servers", Above(1)), ("sizes", BIMODAL))),
)
CLOCK = simulated_seconds(5.0, note="the paper ran 5 to 20 s")


def _bytes(name, bits):
    if bits % 8:
        raise InputError(name, bits, "a whole number of bytes, e.g. 2000B")
    return bits // 8


def switch(p) -> CircuitSwitch:
    if p["ideal"]:
        for name in ("select_time", "setup_time"):
            if p[name]:
                raise InputError(name, p[name], "0 or unset with --ideal")
        # Central control sets no circuit up: the model takes no set-up time there, so it keeps its default.
        select, setup = 0.0, (0.0 if p["control"] == "distributed" else CircuitSwitch.setup_time)
    else:
        select = 2e-6 if p["select_time"] is None else p["select_time"]
        setup = 5e-6 if p["setup_time"] is None else p["setup_time"]
    return CircuitSwitch(p["ports"], p["scheduling"], p["window"], p["channels"], p["control"], select, setup,
                         p["link_rate"], p["pointer"], p["claim"], p["pool"], resolution=p["resolution"])


def traffic(p) -> CircuitTraffic:
    sizes = {k: _bytes(k, p[k]) for k in ("size", "size_min", "size_max", "short", "long")}
    return CircuitTraffic(p["sizes"], **sizes, long_bytes=p["long_bytes"], train=p["train"],
                          destinations=p["destinations"], file_servers=p["file_servers"],
                          server_share=p["server_share"], server_long_bytes=p["server_long_bytes"],
                          seconds=p.get("seconds", 5.0), warmup_seconds=p.get("warmup_seconds"))


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    return switch(p), traffic(p)


_SATURATION_THROUGHPUT = Solver("circuit.saturation_throughput")


def _solve(p):
    """The switch and traffic as read (no run length: the answer has none), and the solver's figures."""
    sw, tr = switch(p), traffic(p)
    sw.check_traffic(tr)
    inputs = {**sw.describe(), **tr.describe()}
    inputs.pop("seconds")
    inputs.pop("warmup_seconds")
    return inputs, split(_SATURATION_THROUGHPUT(sw, tr))[1]


def _servers(c, which):
    f = c.workload.file_servers
    if not f:
        return None
    n = c.system.n_ports
    span = c.workload.seconds * 1e9
    counts = {"send": (c["m_server_send_ns"], f), "receive": (c["m_server_receive_ns"], f),
              "client": (c["m_client_client_ns"], n - f)}
    busy, ports = counts[which]
    return busy / (ports * span)


METRICS = (
    Metric("throughput", "1", lambda c: c["m_busy_ns"] / (c.system.n_ports * c.workload.seconds * 1e9),
           "bits sent / (ports x link rate x measured time), the paper's saturation throughput", bounds=(0.0, 1.0)),
    Metric("attempts_per_packet", "attempts/packet", lambda c: c["m_attempts"] / c["m_delivered"],
           "set-up attempts per packet sent (1 under central control and on the ideal switch)"),
    Metric("mean_delay", "us", lambda c: c["m_delay_sum_ns"] / c["m_delivered"] / 1000,
           "from when a packet became eligible (entered the window, reached its channel's head) to its last bit"),
    Metric("server_send", "1", lambda c: _servers(c, "send"), "file servers' links busy sending (share)",
           bounds=(0.0, 1.0)),
    Metric("server_receive", "1", lambda c: _servers(c, "receive"), "file servers' links busy receiving (share)",
           bounds=(0.0, 1.0)),
    Metric("client_client", "1", lambda c: _servers(c, "client"),
           "clients' links busy sending to other clients (share)", bounds=(0.0, 1.0)),
)
COUNTERS = (Counter("delivered", "packets"), Counter("attempts", "attempts", counter="m_attempts"),
            Counter("bytes_delivered", "B"))


def _at_defaults(build, params):
    """``build`` (switch or traffic) at ``params``, the rest at the declaration's defaults."""
    return build({**DECLARATION.defaults(), **params})


def _case(label, params, why, tolerance=0.0, seconds=0.2, replications=8, precision=0.0, precision_share=None):
    analytic = solved("circuit.saturation_throughput", later(_at_defaults, switch, params),
                      later(_at_defaults, traffic, params))
    # Every adapter always has a packet (saturated sources): each row is a saturation throughput.
    share = {} if precision_share is None else {"precision_share": precision_share}
    return Case("circuit", label, {**params, "seconds": seconds}, "throughput", analytic, tolerance=tolerance,
                why=why, replications=replications, unit="1", saturated=True, precision=precision, **share)


CASES = (
    _case("N=2, distributed overhead, bimodal 32000/100 B at BinL 0.5", {"ports": 2, "sizes": "bimodal",
          "long": 8 * 32000, "long_bytes": 0.5},
          "Renewal-reward is exact without conflicts. Precision 0.01: half the bytes in 32000 B packets leave 0.2 s "
          "with a few hundred of them, so replications differ by about 3 % and 0.5 % would take some 600; 0.01 "
          "still tells the exact answer (0.222) from the same link without overhead (0.333) or with it paid twice.",
          precision=0.01, precision_share=0.0),
    _case("N=4, ideal, fixed 2000 B, destinations all: Karol's chain", {"ports": 4, "ideal": True, "size": 16000,
          "destinations": "all"}, "Fixed sizes and no overhead make the switch slotted: exact."),
    _case("N=3, ideal, fixed, others: full chain", {"ports": 3, "ideal": True, "size": 16000},
          "Exact full chain of the slotted switch with destinations over the other nodes."),
    _case("N=3, W=2, ideal, fixed, all, ns clock: window chain (random rule)", {"ports": 3, "ideal": True,
          "size": 16000, "scheduling": "window", "window": 2, "destinations": "all", "resolution": "ns"},
          "Exact lumped chain of the random window rule, which the ideal switch is when circuits ending together "
          "are matched as one batch (--resolution ns)."),
    _case("N=8, L=8 channels, ideal, uniform sizes: 100 %", {"ports": 8, "ideal": True, "sizes": "uniform",
          "scheduling": "channels", "channels": 8},
          "Exact; only the start (every port free at once) can leave a port idle, for one packet time.",
          tolerance=0.001),
    _case("N=32, FIFO, overhead 2 + 5 us, fixed 2000 B: the approximation", {"ports": 32, "size": 16000},
          "The approximation neglects retry gaps and reads high; its stated error OVERHEAD_ERROR (0.05) is the "
          "worst gap measured over the report's grid.", tolerance=0.05, seconds=0.16, replications=5),
    _case("N=64, ideal FIFO, uniform [0, 32000] B: the N -> infinity limit", {"ports": 64, "ideal": True,
          "sizes": "uniform"}, "The limit is for N -> infinity; finite N reads higher (FIFO_LIMIT_ERROR, "
          "measured).", tolerance=0.03, seconds=0.4, replications=5),
)

# Every adapter is always backlogged: the twin's throughput is the saturation throughput, against the analytic
# answer within its own stated error (0 where exact).
_SATURATION = Compare("saturation_throughput", "throughput", error_result="error", saturated=True,
                      why="exact where error is 0, else within the approximation's stated error")


DECLARATION = Architecture(
    name="circuit", family="switch", order=15,
    sample={"ports": 4, "scheduling": "window", "window": 2, "sizes": "bimodal", "seconds": 0.002},
    title="Circuit-switched LAN (HIPPI)",
    summary="paper 001: one circuit per packet, saturated adapters, FIFO / window / logical channels, "
            "distributed or central control with set-up overheads, variable sizes",
    description="Simulated circuit-switched LAN (paper 001): event-driven, saturated adapters; throughput as the "
                "paper defines it (bits sent / (ports x link rate x time)), set-up attempts per packet, mean "
                "packet delay; means over replications with 95% CIs.",
    config=(CircuitSwitch,), accepts=(CircuitTraffic,), params=SYSTEM, workload=TRAFFIC, build=build, clock=CLOCK,
    kernel="switchq.validate.arch.circuit", metrics=METRICS, counters=COUNTERS,
    table=("throughput", "attempts_per_packet", "mean_delay"),
    # Issue 12: one saturation point at N = 32 over the paper's 5 s of simulated time in under 1 s.
    bench=(BenchCase("Circuit LAN N=32, FIFO, distributed, bimodal 100 B/32 KB at 90 %, 5 s simulated",
                     {"ports": 32, "sizes": "bimodal", "short": 800, "long": 256_000, "long_bytes": 0.9,
                      "seconds": 5.0}, 1.0),
           BenchCase("Circuit LAN N=32, window 32, distributed, fixed 2000 B, 5 s simulated",
                     {"ports": 32, "scheduling": "window", "window": 32, "size": 16_000, "seconds": 5.0}, 1.0)),
    vary_example="long_bytes=0.1:0.9:0.2 --vary ports=4,16 --sizes bimodal --seconds 0.5",
    examples=("switchq simulate circuit --ports 16 --scheduling window --window 16 --ideal --sizes fixed "
              "--size 2000B --seconds 0.2 --seed 1 --json",
              "switchq simulate circuit --ports 32 --sizes bimodal --short 100B --long 32KB --long-bytes 0.9 "
              "--setup-time 5us --select-time 2us --seconds 0.2"),
    answers=(
        Answer("circuit", "Circuit-switched LAN: saturation throughput",
               "paper 001: renewal-reward without conflicts, slotted chains for the ideal switch, the "
               "variable-size FIFO limit, an overhead approximation, logical channels (simulated twin: "
               "switchq simulate circuit)",
               params=SYSTEM + TRAFFIC + CLOCK.params, solve=_solve, returns=(_SATURATION_THROUGHPUT,),
               twin=lambda p: p, table=("saturation_throughput", "method"),
               sim_table=("throughput", "attempts_per_packet", "mean_delay"),
               description="Analytic saturation throughput of a circuit-switched LAN (paper 001), where a model "
                           "applies; otherwise the method says 'no analytic model'. `error` is the stated "
                           "error of an approximation (0: exact).",
               examples=("switchq solve circuit --ports 2 --sizes bimodal --long 32KB --long-bytes 0.5 --json",
                         "switchq solve circuit --ports 32 --ideal --sizes uniform --size-min 0B --size-max 32KB",
                         "switchq solve circuit --ports 3 --ideal --window 2 --scheduling window --resolution ns"),
               vary_example="long_bytes=0.1:0.9:0.2 --sizes bimodal --ports 2", compares=(_SATURATION,)),
    ),
    cases=CASES,
    report=(("circuit", "switchq.validate.reports.circuit"),),
)
