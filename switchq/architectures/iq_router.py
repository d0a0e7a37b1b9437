"""BookSim2's input-queued virtual-channel router network, simulated cycle by cycle (issue 38).

Simulated as ``iq-router`` (:mod:`switchq.validate.arch.iq_router`); no analytic answer. Options are BookSim2's
configuration keys with dashes (``--num-vcs``, ``--injection-rate``); ``--booksim-config FILE`` reads a BookSim2
file (:mod:`switchq.models.booksim_config`) and ``--booksim-set "key=value; ..."`` adds BookSim2's command-line
overrides after it. An option given on switchq's command line is applied last, as one more override.
"""

from __future__ import annotations

import sys
from pathlib import Path

from switchq.declaration import CYCLES, Architecture, Counter, Metric
from switchq.errors import InputError
from switchq.models.iq_router import (ALLOCATORS, BUFFER_POLICIES, PATTERNS, ROUTING_OF, TOPOLOGIES, IqRouterNetwork,
                                      IqTraffic)
from switchq.params import Param, check_applies

_BOOL = dict(low=0, high=1, unit="1")
# (option, BookSim2 key, kind, default, extra): the network's.
SYSTEM = (
    Param("topology", "topology", "choice", None, choices=TOPOLOGIES, default_text="mesh (or the file's)",
          help="BookSim2's topology: fly (k-ary n-fly), mesh, torus (k-ary n-cube) or fattree (k-ary n-tree)."),
    Param("k", "k", "int", None, low=2, high=1 << 16, unit="1", default_text="8", help="Radix (BookSim2's k)."),
    Param("n", "n", "int", None, low=1, high=20, unit="1", default_text="2", help="Dimensions or levels (n)."),
    Param("num_vcs", "num_vcs", "int", None, low=1, high=64, unit="VCs", default_text="16",
          help="Virtual channels per port."),
    Param("vc_buf_size", "vc_buf_size", "int", None, low=1, high=4096, unit="flits", default_text="8",
          help="Flits per VC buffer (private buffers)."),
    Param("buffer_policy", "buffer_policy", "choice", None, choices=BUFFER_POLICIES, default_text="private",
          help="private: vc_buf_size flits per VC; shared: buf_size flits per port, private_buf_size per VC."),
    Param("buf_size", "buf_size", "int", None, low=-1, high=1 << 16, unit="flits", default_text="-1",
          help="Flits per input port (-1: num_vcs x vc_buf_size); with private buffers split over the VCs."),
    Param("private_buf_size", "private_buf_size", "int", None, low=-1, high=1 << 16, unit="flits",
          default_text="1", help="shared: flits reserved per VC (-1: buf_size / num_vcs); the rest is shared."),
    Param("routing_delay", "routing_delay", "int", None, low=0, high=64, unit="cycles", default_text="1",
          help="Routing stage; 0: lookahead routing (computed at the hop before)."),
    Param("st_prepare_delay", "st_prepare_delay", "int", None, low=0, high=64, unit="cycles", default_text="0",
          help="Crossbar set-up cycles."),
    Param("st_final_delay", "st_final_delay", "int", None, low=0, high=64, unit="cycles", default_text="1",
          help="Crossbar traversal cycles."),
    Param("credit_delay", "credit_delay", "int", None, low=0, high=64, unit="cycles", default_text="0",
          help="Cycles a credit waits after its channel."),
    Param("input_speedup", "input_speedup", "int", None, low=1, high=64, unit="1", default_text="1",
          help="Crossbar inputs per port (VC v uses input v mod s)."),
    Param("output_speedup", "output_speedup", "int", None, low=1, high=16, unit="1", default_text="1",
          help="Crossbar outputs per port (input p uses output p mod s)."),
    Param("vc_allocator", "vc_allocator", "choice", None, choices=ALLOCATORS, default_text="islip",
          help="VC allocator."),
    Param("sw_allocator", "sw_allocator", "choice", None, choices=ALLOCATORS, default_text="islip",
          help="Switch allocator."),
    Param("vc_iterations", "vc_iterations", "int", None, low=1, high=16, unit="1", default_text="1",
          help="iSLIP iterations of the VC allocator (BookSim2: islip(N))."),
    Param("sw_iterations", "sw_iterations", "int", None, low=1, high=16, unit="1", default_text="1",
          help="iSLIP iterations of the switch allocator (BookSim2: islip(N))."),
    Param("wait_for_tail_credit", "wait_for_tail_credit", "int", None, default_text="0", **_BOOL,
          help="1: an output VC is free only once its tail's credit is back."),
    Param("hold_switch_for_packet", "hold_switch_for_packet", "int", None, default_text="0", **_BOOL,
          help="1: a packet keeps its crossbar path while its flits follow back to back."),
    Param("use_noc_latency", "use_noc_latency", "int", None, default_text="1", **_BOOL,
          help="1: torus links take 2 cycles (BookSim2's default); 0: every link 1."),
)
TRAFFIC = (
    Param("injection_rate", "injection_rate", "float", None, low=0, high=1, unit="packets/node/cycle",
          default_text="0.1", help="Offered load (flits/node/cycle with --injection-rate-uses-flits 1)."),
    Param("traffic", "traffic", "choice", None, choices=PATTERNS, default_text="uniform",
          help="Destination pattern (uniform may pick the source, as BookSim2's)."),
    Param("packet_size", "packet_size", "int", None, low=1, high=4096, unit="flits", default_text="1",
          help="Flits per packet."),
    Param("injection_rate_uses_flits", "injection_rate_uses_flits", "int", None, default_text="0", **_BOOL,
          help="1: --injection-rate counts flits."),
    Param("injection_process", "injection_process", "choice", None, choices=("bernoulli", "on_off"),
          default_text="bernoulli", help="Bernoulli, or BookSim2's on-off chain."),
    Param("burst_alpha", "burst_alpha", "float", None, low=-1, high=1, unit="1", default_text="0.5",
          help="on_off: chance off -> on per cycle (negative: derived)."),
    Param("burst_beta", "burst_beta", "float", None, low=-1, high=1, unit="1", default_text="0.5",
          help="on_off: chance on -> off per cycle (negative: derived)."),
    Param("burst_r1", "burst_r1", "float", None, low=-1, high=1, unit="packets/node/cycle", default_text="-1",
          help="on_off: rate while on (negative: derived)."),
    Param("include_queuing", "include_queuing", "int", None, default_text="1", **_BOOL,
          help="1: a packet's latency counts from its creation in the source queue."),
)
BOOKSIM = (
    Param("booksim_config", "booksim_config", "text", None, default_text="none",
          help="A BookSim2 configuration file, run as BookSim2 reads it; switchq options override it. BookSim2's "
               "examples singleconfig, fattree_config, mesh88_lat and torus88 ship with switchq: their name alone "
               "reads them where no file of that name is."),
    Param("booksim_set", "booksim_set", "text", None, default_text="none",
          help="BookSim2 overrides after the file, as on its command line: 'injection_rate=0.2; k=4'."),
)
_NETWORK_KEYS = {q.name for q in SYSTEM}
_TRAFFIC_FIELD = {"traffic": "pattern", "injection_process": "process"}    # BookSim2's key -> IqTraffic's field
_SAID: set = set()
_DEFAULTS = {"topology": "mesh", "k": 8, "n": 2}


def _allocator(text, key):
    """BookSim2's allocator name, with islip(N) inline for its iterations."""
    name, _, rest = str(text).partition("(")
    iters = 1
    if rest:
        try:
            iters = int(rest.rstrip(")"))
        except ValueError:
            raise InputError("booksim_config", f"{key} = {text}", "an allocator, or islip(N)") from None
    if name not in ALLOCATORS or (rest and name != "islip"):
        raise InputError("booksim_config", f"{key} = {text}", ", ".join(ALLOCATORS) + ", or islip(N) "
                                                               "(switchq's iq-router models these)")
    return name, iters


def _config_path(name: str) -> Path:
    """The file ``name``, or, where there is none, BookSim2's example of that name shipped with switchq."""
    path = Path(name)
    bundled = Path(__file__).resolve().parents[1] / "examples" / "booksim" / path.name
    if not path.exists() and path.parent == Path(".") and bundled.is_file() and path.name != "LICENSE.md":
        return bundled
    return path


def _from_file(p) -> dict:
    """The file's and overrides' values as switchq's parameters (None where neither sets one)."""
    from switchq.models.booksim_config import read

    if p.get("booksim_config") is None:
        if p.get("booksim_set"):
            raise InputError("booksim_set", p["booksim_set"], "unset without --booksim-config")
        return {}
    overrides = [s for s in (p.get("booksim_set") or "").split(";") if s.strip()]
    cfg = read(_config_path(p["booksim_config"]), overrides)
    for note in cfg.notes:
        said = f"switchq: {Path(cfg.source).name}: {note}"
        if said not in _SAID:               # once a process: a sweep builds the file at every point
            _SAID.add(said)
            print(said, file=sys.stderr)
    v = cfg.values
    out = {name: v[name] for name in _NETWORK_KEYS | {q.name for q in TRAFFIC}
           if name in v and name not in ("vc_allocator", "sw_allocator")}
    out["vc_allocator"], out["vc_iterations"] = _allocator(v["vc_allocator"], "vc_allocator")
    out["sw_allocator"], out["sw_iterations"] = _allocator(v["sw_allocator"], "sw_allocator")
    if not isinstance(v["packet_size"], int):
        raise InputError("booksim_config", f"packet_size = {v['packet_size']}", "one size (several are not modelled)")
    if not isinstance(v["injection_rate"], float):
        raise InputError("booksim_config", f"injection_rate = {v['injection_rate']}", "one rate (per-class lists are "
                                                                                     "not modelled)")
    routing = v["routing_function"]
    if routing not in ROUTING_OF.get(v["topology"], ()):
        raise InputError("booksim_config", f"routing_function = {routing}",
                         f"{' or '.join(ROUTING_OF[v['topology']])} on a {v['topology']} (switchq's iq-router routes "
                         "each topology as these)")
    # The shared policy's private regions, checked once the policy and num_vcs are final (build).
    out["regions"] = {key: v[key] for key in _REGION_KEYS}
    return out


_REGION_KEYS = ("private_bufs", "private_buf_start_vc", "private_buf_end_vc", "private_buf_size")


def _check_private_regions(v, num_vcs) -> None:
    """The shared policy as modelled: one private region per VC (BookSim2's private_bufs -1, its default), of
    one size. A file's other layouts are refused by name, never read as this one."""
    if v["private_bufs"] not in (-1, num_vcs):
        raise InputError("booksim_config", f"private_bufs = {v['private_bufs']}", f"-1 or num_vcs ({num_vcs}): "
                         "switchq's shared policy has one private region per VC")
    for key in ("private_buf_start_vc", "private_buf_end_vc"):
        if v[key] != -1:
            raise InputError("booksim_config", f"{key} = {v[key]}", "-1 (one private region per VC)")
    if not isinstance(v["private_buf_size"], int):
        raise InputError("booksim_config", f"private_buf_size = {v['private_buf_size']}", "one size for every VC")


def build(p):
    check_applies(DECLARATION.all_params(), p, p)
    merged = {**_DEFAULTS, **_from_file(p), **{k: val for k, val in p.items() if val is not None}}
    regions = merged.pop("regions", None)
    if regions is not None and merged.get("buffer_policy") == "shared":
        # The file's layout under the policy and num_vcs given last (a switchq option may set either).
        _check_private_regions(regions, merged.get("num_vcs", 16))
    if merged.get("buffer_policy", "private") == "private":
        if not isinstance(merged.get("private_buf_size", 1), int):
            del merged["private_buf_size"]      # a file's list of sizes: read by the shared policies only
        if merged.get("buf_size", -1) > 0 and p.get("vc_buf_size") is None:
            # BookSim2's private policy splits buf_size over the VCs: the number of them given last.
            merged["vc_buf_size"] = merged["buf_size"] // merged.get("num_vcs", 16)
        merged["buf_size"] = -1                 # all the private policy reads of it is that split
    # Options are the models' fields (SYSTEM's targets are IqRouterNetwork's; two of TRAFFIC's are renamed).
    net = IqRouterNetwork(**{q.target: merged[q.name] for q in SYSTEM if q.name in merged})
    traffic = IqTraffic(**{_TRAFFIC_FIELD.get(q.name, q.name): merged[q.name] for q in TRAFFIC if q.name in merged})
    net.check_traffic(traffic)
    return net, traffic


def _per_packet(counter):
    return lambda c: c[counter] / c["m_packets"]


def _per_node(counter):
    return lambda c: c[counter] / (c.system.nodes * c.slots)


def _stability(c):
    """Growth of what was offered and not yet delivered: the sources' queues (their lag behind the clock, times
    the rate, in flits) and the flits in the network, against 1 % of the flits offered plus a packet a node."""
    from switchq.validate.harness import Backlog

    t = c.workload
    per_cycle = t.packet_rate * t.packet_size
    growth = (c["source_lag_end"] - c["source_lag_start"]) * per_cycle + c["queued"] - c["in_network_start"]
    offered = per_cycle * c.system.nodes * c.slots
    return Backlog(growth, offered, c.system.nodes * t.packet_size, "flits", granule=t.packet_size)


METRICS = (
    Metric("throughput", "flits/node/cycle", _per_node("m_flits_ejected"),
           "flits ejected per node per cycle (BookSim2's accepted flit rate)", bounds=(0.0, 1.0)),
    Metric("accepted_packet_rate", "packets/node/cycle", _per_node("m_packets"),
           "packets whose tail was ejected per node per cycle", bounds=(0.0, 1.0)),
    Metric("injected_packet_rate", "packets/node/cycle", _per_node("m_packets_generated"),
           "packets the sources generated per node per cycle (BookSim2's: a lagging source generates late)",
           bounds=(0.0, 1.0)),
    Metric("packet_latency", "cycles", _per_packet("m_packet_latency_sum"),
           "creation (in the source queue) to the tail's ejection, per packet ejected while measuring"),
    Metric("network_latency", "cycles", _per_packet("m_network_latency_sum"),
           "the head's injection to the tail's ejection"),
    Metric("flit_latency", "cycles", lambda c: c["m_flit_latency_sum"] / (c["m_packets"] * c.workload.packet_size),
           "each flit's injection to its ejection"),
    Metric("hops", "routers", _per_packet("m_hops_sum"), "routers a packet crosses (BookSim2's hops)"),
)

DECLARATION = Architecture(
    name="iq-router", family="network", order=66, clock=CYCLES, size="nodes",
    title="BookSim2's input-queued VC router network",
    summary="BookSim2's iq router on a fly, mesh, torus or fat tree; runs BookSim2 configuration files",
    description="Input-queued virtual-channel routers as BookSim2 builds them (routing, VC and switch allocation, "
                "crossbar and credit delays, speedups, held switch), wired as BookSim2's fly, mesh, torus or fat "
                "tree, under its traffic manager (source queues, Bernoulli or on-off, its patterns). "
                "--booksim-config reads BookSim2's own files.",
    config=(IqRouterNetwork,), accepts=(IqTraffic,), params=(*SYSTEM, *BOOKSIM), workload=TRAFFIC, build=build,
    kernel="switchq.validate.arch.iq_router", metrics=METRICS,
    counters=(Counter("arrived", "flits"), Counter("delivered", "flits"), Counter("queued", "flits"),
              Counter("packet_latency_max", "cycles", "max")),
    units={"k": "1", "n": "1", "nodes": "nodes", "num_vcs": "VCs", "vc_buf_size": "flits", "buf_size": "flits",
           "private_buf_size": "flits", "routing_delay": "cycles",
           "st_prepare_delay": "cycles", "st_final_delay": "cycles", "credit_delay": "cycles", "input_speedup": "1",
           "output_speedup": "1", "vc_iterations": "1", "sw_iterations": "1", "injection_rate": "packets/node/cycle",
           "packet_size": "flits"},
    stability=_stability, main="packet_latency", report=(("booksim", "switchq.validate.reports.booksim"),),
    table=("throughput", "packet_latency", "network_latency", "flit_latency", "hops"),
    sample={"topology": "mesh", "k": 4, "n": 2, "num_vcs": 4, "injection_rate": 0.1},
    examples=("switchq simulate iq-router --topology mesh --k 8 --n 2 --num-vcs 8 --injection-rate 0.02 --json",
              "switchq simulate iq-router --booksim-config mesh88_lat --injection-rate 0.005"),
    vary_example="injection_rate=0.02,0.05,0.1 --topology mesh --k 4 --n 2 --num-vcs 4",
)
