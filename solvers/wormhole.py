"""Analytic answers for MediaWorm wormhole routers (paper 004 §III-§V): pipeline latency, FGVC delay bound.

What can be said of :mod:`switchq.models.wormhole` without simulating it,
each answer a frozen result naming its method and source:

- :data:`TABLE_IV_TIMING`: the paper's link / flit pairings and their flit
  cycle (32 b at 400 Mbit/s and 128 b at 1.6 Gbit/s: 80 ns, 12.5e6 cycles/s),
  the one table kernel and solvers share.
- :func:`zero_load_latency`: a message alone, to the cycle: a header takes
  ``header_stages`` cycles per router (Fig. 1: sync/demux/decode, routing,
  arbitration, crossbar, VC mux), ``link_cycles`` per link, and the body
  streams behind it one flit a cycle (its 3-stage bypass never lets it catch
  up), so h routers cost ``h * header_stages + (h + 1) * link_cycles + M - 1``.
- :func:`fgvc_delay_bound`: VirtualClock is a guaranteed-rate server
  (Goyal, Lam & Vin 1997; Figueira & Pasquale 1995), so on an admissible
  load a message's delay over K scheduled links is bounded
  (the multi-hop form of Parekh & Gallager 1994); the frame delivery
  interval's deviation is then at most the bound minus the zero-load latency.
- :mod:`switchq.solvers.wormhole_contention`: what the load does, i.e. the
  probability that random placement over-commits an output and its effect
  on the frame interval, best-effort latency under strict priority (a
  queueing approximation), PCS blocking as loss models.
- :func:`answers`: all of the above for one configuration, named, with
  units (what ``switchq solve wormhole`` prints).

Times are cycles (one flit per link per cycle) with seconds beside them;
loads and rates are shares of the link bandwidth (flits per cycle).

Examples
--------
>>> from switchq.models.wormhole import WormholeRouter
>>> z = zero_load_latency(WormholeRouter(), 20)
>>> z.cycles, round(z.seconds * 1e6, 2)               # 5 + 2 + 19 cycles of 80 ns
(26, 2.08)
>>> TABLE_IV_TIMING["1.6Gb/s"].router.cycle_seconds
8e-08
"""

from __future__ import annotations

from dataclasses import dataclass

from switchq.errors import InputError
from switchq.models import _check
from switchq.models.wormhole import WormholeRouter

from . import wormhole_traffic as wt

__all__ = ["Timing", "TABLE_IV_TIMING", "flit_cycle", "ZeroLoad", "zero_load_latency", "route_hops", "mean_hops",
           "pcs_setup_cycles", "FgvcBound", "fgvc_delay_bound", "GOYAL", "FIGUEIRA", "PAREKH", "COBHAM",
           "PAPER"]

PAPER = "paper 004, 'MediaWorm: a QoS capable router architecture for clusters'"
GOYAL = ("P. Goyal, S. S. Lam and H. M. Vin, 'Determining end-to-end delay bounds in heterogeneous networks', "
         "Multimedia Systems 5(3):157-163, 1997 (VirtualClock is a guaranteed-rate server, beta = l_max / C)")
FIGUEIRA = ("N. R. Figueira and J. Pasquale, 'An upper bound on delay for the VirtualClock service discipline', "
            "IEEE/ACM Trans. Networking 3(4):399-408, 1995")
PAREKH = ("A. K. Parekh and R. G. Gallager, 'A generalized processor sharing approach to flow control in integrated "
          "services networks: the multiple node case', IEEE/ACM Trans. Networking 2(2):137-150, 1994")
COBHAM = ("A. Cobham, 'Priority assignment in waiting line problems', Oper. Res. 2:70-76, 1954; preemptive-resume "
          "form in L. Kleinrock, Queueing Systems vol. 2, 1976, §3.7")


@dataclass(frozen=True)
class Timing:
    """One link / flit pairing of Table IV: the router at that pairing (its ``cycle_seconds`` and
    ``cycles_per_second``, the model's one rule) and where the paper states it."""

    router: WormholeRouter
    note: str


# Table IV pairs "Flit Size 32 / 128 bits" with "PC Bandwidth 400 Mbps / 1.6 Gbps": both give an 80 ns flit
# cycle (12.5e6 cycles per simulated second, the figure). §V-F's 100 Mbit/s PCS comparison states no
# flit size: 32 bits is read (320 ns). Message size (20 / 40 flits) and VC buffers (one message) are free of it.
TABLE_IV_TIMING = {
    "400Mb/s": Timing(WormholeRouter(flit_bits=32, link_rate=400e6),
                      "Table IV: 32-bit flits at 400 Mbit/s (Figs. 5-9, 13)"),
    "1.6Gb/s": Timing(WormholeRouter(flit_bits=128, link_rate=1.6e9),
                      "Table IV: 128-bit flits at 1.6 Gbit/s (Figs. 11-12, MPEG-2)"),
    "100Mb/s": Timing(WormholeRouter(flit_bits=32, link_rate=100e6),
                      "§V-F PCS comparison at 100 Mbit/s; flit size not stated, 32 bits read"),
}


def flit_cycle(link_rate: float, flit_bits: int) -> float:
    """Seconds per flit cycle: ``flit_bits / link_rate`` (Table IV: 32 / 400e6 = 128 / 1.6e9 = 80 ns).

    Examples
    --------
    >>> flit_cycle(400e6, 32), flit_cycle(1.6e9, 128), flit_cycle(100e6, 32)
    (8e-08, 8e-08, 3.2e-07)
    """
    return WormholeRouter(flit_bits=flit_bits, link_rate=link_rate).cycle_seconds


# --------------------------------------------------------------------------- zero load

@dataclass(frozen=True)
class ZeroLoad:
    """A message's latency alone in the network: cycles from its creation at the source to its last flit's
    arrival at the destination, and the same in seconds."""

    cycles: float
    seconds: float
    hops: float
    method: str
    source: str = PAPER + " §III-B, Fig. 1"


def route_hops(network, source: int, dest: int) -> int:
    """Routers a message from node ``source`` to node ``dest`` crosses (walking the routing tables).

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeNetwork
    >>> fm = WormholeNetwork(topology="fatmesh")
    >>> route_hops(fm, 0, 1), route_hops(fm, 0, 4), route_hops(fm, 0, 15)   # same router, x neighbour, diagonal
    (1, 2, 3)
    """
    t = network.tables()
    s = int(t.out_switch[t.node_link(source)])
    hops = 1
    while True:
        mask = int(t.groups[s, t.route[s, dest]])
        port = (mask & -mask).bit_length() - 1
        nxt = int(t.out_switch[s * t.ports + port])
        if nxt < 0:
            return hops
        s, hops = nxt, hops + 1


def mean_hops(network, destinations: str = "all") -> float:
    """Mean routers crossed with uniform destinations (``all`` nodes or the ``others``): 1 on one router; 2 on
    the 2 x 2 fat mesh over all 16 nodes, 31/15 over the others.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeNetwork
    >>> mean_hops(WormholeNetwork(topology="fatmesh")), round(mean_hops(WormholeNetwork(topology="fatmesh"), "others"), 4)
    (2.0, 2.0667)
    """
    n = network.nodes
    total = count = 0
    for v in range(n):
        for d in range(n):
            if d == v and destinations == "others":
                continue
            total += route_hops(network, v, d)
            count += 1
    return total / count


def zero_load_latency(router, message_flits: int, hops: float = 1) -> ZeroLoad:
    """Cycles from a message's creation to its tail's arrival with nothing else in the network.

    Stage timing (the kernel must match it to the cycle): the header leaves the source in the cycle the
    message is created and spends ``link_cycles`` on each link; at each router it passes the
    ``header_stages`` stages one cycle each (sync/demux/buffer/decode, routing decision, arbitration,
    crossbar, VC mux/output buffer) before entering the next link. Body and tail flits follow one per cycle;
    their ``body_stages``-stage bypass (stages 1, 4, 5) is shorter than the header's path, so at zero load
    they wait behind it and the tail arrives ``M - 1`` cycles after the header:
    ``hops * header_stages + (hops + 1) * link_cycles + M - 1``. The 8 x 8 router at 400 Mbit/s (or
    1.6 Gbit/s, also 80 ns), M = 20: 26 cycles, 2.08 us; M = 40: 46 cycles, 3.68 us.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter
    >>> r = WormholeRouter(flit_bits=128, link_rate=1.6e9)
    >>> zero_load_latency(r, 40).cycles, round(zero_load_latency(r, 40).seconds * 1e6, 2)
    (46, 3.68)
    >>> zero_load_latency(WormholeRouter(), 20, hops=2).cycles         # fat mesh, neighbouring routers
    32
    """
    m = _check.integer("message_flits", message_flits, 1, 1 << 16)
    h = _check.real("hops", hops, 1.0, 64.0)
    cycles = h * router.header_stages + (h + 1) * router.link_cycles + m - 1
    if float(cycles).is_integer():
        cycles = int(cycles)
    return ZeroLoad(cycles, cycles * router.cycle_seconds, h,
                    f"hops x {router.header_stages} header stages + (hops + 1) x {router.link_cycles} link cycle(s) "
                    f"+ M - 1 body flits")


def pcs_setup_cycles(router, hops: int = 1) -> int:
    """PCS path set-up, cycles: the probe goes as a header (``header_stages`` per router, ``link_cycles`` per
    link) and the acknowledgment returns over the same links, one cycle per router (a reading: §III-F gives
    no timing). One router: 5 + 2 + 2 + 1 = 10 cycles.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter
    >>> pcs_setup_cycles(WormholeRouter())
    10
    """
    h = _check.integer("hops", hops, 1, 64)
    return h * router.header_stages + 2 * (h + 1) * router.link_cycles + h


# --------------------------------------------------------------------------- FGVC bound

@dataclass(frozen=True)
class FgvcBound:
    """An upper bound on a real-time message's delay under FGVC on an admissible load, and what it implies
    for the frame delivery interval (cycles and seconds)."""

    bound_cycles: float
    bound_seconds: float
    vtick: float
    message_interval: float
    servers: int
    zero_load_cycles: float
    jitter_bound_seconds: float
    reserved_input_load: float
    admissible_input: bool
    method: str
    source: str = f"{GOYAL}; {FIGUEIRA}; {PAREKH}"


def fgvc_delay_bound(router, traffic, hops: int = 1, servers: int | None = None,
                     message_interval: float | None = None, sequence: int | None = None,
                     nodes: int | None = None) -> FgvcBound:
    """Delay bound of one real-time message under FGVC, given the load is admissible (reserved rates at
    most the link at every scheduled link on its path).

    FGVC serves each flit as a VirtualClock packet with Vtick = message interval / M cycles (§III-D),
    rate r = 1 / Vtick. VirtualClock is a guaranteed-rate server with error term beta = l_max / C = one
    cycle (Goyal, Lam & Vin 1997, after Figueira & Pasquale 1995). A message is a burst of sigma = M
    flits at rate r, so over K guaranteed-rate links in tandem (Goyal et al.'s network theorem, the GR form
    of Parekh & Gallager's multi-hop bound)

        D <= (sigma + (K - 1) l_max) / r + K beta + P = (M + K - 1) Vtick + K + P cycles,

    with P = hops x header_stages + (hops + 1) x link_cycles the pipeline and wire latency. K defaults
    to hops + 1: the injection link (the source multiplexing its streams, read as FGVC too) and each
    router's output link; the crossbar input port is as fast as the input link and adds no bound term.
    The message interval defaults to regulator_span / (mean messages per frame) (mpeg2: averaged over the
    sequences): the bound is per message, with that message's Vtick, so a frame with fewer messages (a small
    VBR frame, an MPEG-2 B frame) has a proportionally larger one; pass ``message_interval`` (seconds) for
    a given frame. The frame is delivered by its last message, whose delay lies between the zero-load
    latency and D, so a frame interval departs from the regulator's by at most ``jitter_bound_seconds`` =
    D - zero-load.

    Admissible means the rates of the messages present at once sum to at most each link. FGVC keeps no
    state between messages, and D exceeds the message interval by (K - 1) Vtick + K + P, so a stream's
    consecutive messages may overlap that long and briefly reserve twice: ``admissible_input`` (streams x
    rate <= 1 on the input link) is necessary, not sufficient. Not covered at all: wormhole blocking (a
    message waiting for a free VC downstream, one message deep, several streams sharing a VC), outside the
    GR model; the simulator measures whether it matters.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic, VideoStreams
    >>> b = fgvc_delay_bound(WormholeRouter(), WormholeTraffic(0.96, (80, 20), streams=VideoStreams("cbr")))
    >>> b.vtick, b.bound_cycles, round(b.bound_seconds * 1e6, 2), round(b.jitter_bound_seconds * 1e3, 3)
    (93.75, 1977.75, 158.22, 0.156)
    >>> round(b.reserved_input_load, 4), b.admissible_input      # the busiest input's 77 streams x 0.010529
    (0.8107, True)
    """
    h = _check.integer("hops", hops, 1, 64)
    k = h + 1 if servers is None else _check.integer("servers", servers, 1, 128)
    st = traffic.streams
    m = traffic.message_flits
    cps = router.cycles_per_second
    # mpeg2 without a sequence: the typical message of the mix (messages per frame averaged over sequences).
    seqs = (sequence,) if sequence is not None or st.kind != "mpeg2" else st.sequences
    if message_interval is None:
        messages = sum(wt.mean_frame_flits(st, traffic, router.flit_bits, q)[0] for q in seqs) / len(seqs)
        interval = st.regulator_span * cps / messages
    else:
        interval = _check.real("message_interval", message_interval, 0.0, 10.0, low_open=True) * cps
    vtick = interval / m
    if vtick < 1.0:
        raise InputError("message_interval", interval / cps, f"at least {m} flit cycles ({m / cps:g} s): Vtick >= 1")
    fixed = h * router.header_stages + (h + 1) * router.link_cycles
    bound = (m + k - 1) * vtick + k + fixed
    zero = zero_load_latency(router, m, h).cycles
    reserved = 0.0
    if traffic.realtime_load > 0:
        rate = sum(wt.wire_rate(st, traffic, router, q) for q in seqs) / len(seqs)
        reserved = wt.streams_per_input(router, traffic, nodes=nodes) * rate      # the busiest of ``nodes`` inputs
    return FgvcBound(bound, bound / cps, vtick, interval, k, zero, (bound - zero) / cps, reserved,
                     reserved <= 1.0 + 1e-12,
                     f"guaranteed-rate bound (M + K - 1) Vtick + K beta + P, K = {k} scheduled links, beta = 1 cycle, "
                     f"P = {fixed} cycles")


# --------------------------------------------------------------------------- one configuration
