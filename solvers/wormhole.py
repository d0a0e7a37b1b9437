"""Analytic answers for MediaWorm wormhole routers (paper 004 §III-§V): latency, FGVC bound, over-commitment, loss.

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
- :func:`overcommit`: admission is only at the input link and destinations
  are random, so an output may be reserved beyond its bandwidth; the
  probability of that, from the placement (binomial per output, exact
  multinomial for "any output"), and what it does to the frame interval d
  (:func:`overcommit_frame_interval`).
- :func:`best_effort_latency`: best effort under strict (flit-level,
  preemptive) priority as an M/G/1 preemptive-resume priority queue at the
  output link (Cobham's formula); FCFS M/D/1 for the FIFO router. An
  approximation whose error the simulator measures; :func:`table_v_comparison`
  sets it beside Table V.
- :func:`pcs_fill` and :func:`erlang_b`: PCS connection blocking as loss
  models over the VCs; :func:`table_vi_comparison` beside Table VI.
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
>>> TABLE_IV_TIMING["1.6Gb/s"].cycle_seconds
8e-08
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from switchq.errors import InputError
from switchq.models import _check

from . import wormhole_traffic as wt

__all__ = ["Timing", "TABLE_IV_TIMING", "TABLE_V", "TABLE_VI", "flit_cycle", "ZeroLoad", "zero_load_latency",
           "route_hops", "mean_hops", "pcs_setup_cycles", "FgvcBound", "fgvc_delay_bound", "Overcommit", "overcommit",
           "FrameInterval", "overcommit_frame_interval", "BestEffort", "best_effort_latency", "table_v_comparison",
           "PcsFill", "pcs_fill", "erlang_b", "pcs_erlang", "table_vi_comparison", "GOYAL", "FIGUEIRA", "PAREKH",
           "COBHAM", "PAPER", "answers"]

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
    """One link / flit pairing of Table IV: ``link_rate`` bit/s, ``flit_bits``, and the flit cycle derived."""

    link_rate: float
    flit_bits: int
    note: str

    @property
    def cycle_seconds(self) -> float:
        return self.flit_bits / self.link_rate

    @property
    def cycles_per_second(self) -> float:
        return self.link_rate / self.flit_bits


# Table IV pairs "Flit Size 32 / 128 bits" with "PC Bandwidth 400 Mbps / 1.6 Gbps": both give an 80 ns flit
# cycle (12.5e6 cycles per simulated second, the figure). §V-F's 100 Mbit/s PCS comparison states no
# flit size: 32 bits is read (320 ns). Message size (20 / 40 flits) and VC buffers (one message) are free of it.
TABLE_IV_TIMING = {
    "400Mb/s": Timing(400e6, 32, "Table IV: 32-bit flits at 400 Mbit/s (Figs. 5-9, 13)"),
    "1.6Gb/s": Timing(1.6e9, 128, "Table IV: 128-bit flits at 1.6 Gbit/s (Figs. 11-12, MPEG-2)"),
    "100Mb/s": Timing(100e6, 32, "§V-F PCS comparison at 100 Mbit/s; flit size not stated, 32 bits read"),
}

# Table V: best-effort mean latency (us), 8 x 8, 16 VCs, 400 Mbit/s; None where the paper prints "Sat.".
TABLE_V = {
    (20, 80): (6.3, 9.0, 16.2, 36.9, 43.6),
    (50, 50): (7.7, 11.4, 25.5, 56.1, 64.6),
    (80, 20): (10.3, 15.8, 39.7, 106.9, None),
    (90, 10): (11.9, 19.3, 106.2, None, None),
}
TABLE_V_LOADS = (0.60, 0.70, 0.80, 0.90, 0.96)
# Table VI: input load -> (attempted, established, dropped), 8 x 8 PCS router, 24 VCs, 100 Mbit/s.
TABLE_VI = {0.91: (718, 187, 531), 0.87: (540, 175, 365), 0.80: (476, 160, 316), 0.74: (372, 148, 224),
            0.67: (332, 134, 198), 0.64: (224, 107, 117), 0.42: (172, 83, 89), 0.37: (166, 73, 93)}


def flit_cycle(link_rate: float, flit_bits: int) -> float:
    """Seconds per flit cycle: ``flit_bits / link_rate`` (Table IV: 32 / 400e6 = 128 / 1.6e9 = 80 ns).

    Examples
    --------
    >>> flit_cycle(400e6, 32), flit_cycle(1.6e9, 128), flit_cycle(100e6, 32)
    (8e-08, 8e-08, 3.2e-07)
    """
    return _check.integer("flit_bits", flit_bits, 1, 4096) / _check.real("link_rate", link_rate, 1e3, 1e13)


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
                     message_interval: float | None = None, sequence: int | None = None) -> FgvcBound:
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
    a given frame. The frame is delivered by
    its last message, whose delay lies between the zero-load latency and D, so a frame interval departs
    from the regulator's by at most ``jitter_bound_seconds`` = D - zero-load.

    Not covered: wormhole blocking (a message waiting for a free VC downstream, one message deep, several
    streams sharing a VC) lies outside the GR model; the simulator measures whether it matters.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic, VideoStreams
    >>> b = fgvc_delay_bound(WormholeRouter(), WormholeTraffic(0.96, (80, 20), streams=VideoStreams("cbr")))
    >>> b.vtick, b.bound_cycles, round(b.bound_seconds * 1e6, 2), round(b.jitter_bound_seconds * 1e3, 3)
    (93.75, 1977.75, 158.22, 0.156)
    >>> round(b.reserved_input_load, 4), b.admissible_input      # 76 streams x 0.010529 of the link
    (0.8002, True)
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
        reserved = wt.streams_per_input(router, traffic) * rate
    return FgvcBound(bound, bound / cps, vtick, interval, k, zero, (bound - zero) / cps, reserved,
                     reserved <= 1.0 + 1e-12,
                     f"guaranteed-rate bound (M + K - 1) Vtick + K beta + P, K = {k} scheduled links, beta = 1 cycle, "
                     f"P = {fixed} cycles")


# --------------------------------------------------------------------------- over-commitment

def _binom_sf(k: int, n: int, p: float) -> float:
    """P(Binomial(n, p) > k)."""
    from scipy.stats import binom

    return float(binom.sf(k, n, p))


def _multinomial_max_cdf(total: int, cells: int, k: int) -> float:
    """P(every cell of a uniform multinomial (``total`` balls, ``cells`` cells) holds at most k): cells as
    iid Poisson(total / cells) conditioned on their sum (exact; convolution of the truncated pmfs)."""
    from scipy.stats import poisson

    if k >= total:
        return 1.0
    if k * cells < total:
        return 0.0
    lam = total / cells
    pmf = poisson.pmf(np.arange(k + 1), lam)
    acc = np.ones(1)
    for _ in range(cells):
        acc = np.convolve(acc, pmf)[: total + 1]
    return float(min(1.0, acc[total] / poisson.pmf(total, total)))


@dataclass(frozen=True)
class Overcommit:
    """How likely random stream placement over-reserves an output (``capacity`` share of its link)."""

    streams: int
    max_streams: int
    mean_per_output: float
    p_output: float
    p_any: float
    expected_outputs: float
    method: str
    source: str = PAPER + " §IV-B.1 (random destinations), §IV-B.3 (admission only at the input link)"


def overcommit(nodes: int, streams_per_input: int, stream_rate: float, capacity: float = 1.0,
               destinations: str = "all", targets_per_node: int = 1) -> Overcommit:
    """Probability that the streams reserved on an output exceed its ``capacity`` (a share of the link).

    Each of the ``nodes * streams_per_input`` streams picks its destination uniformly (``all`` nodes, or the
    ``others``), so an output's stream count K is Binomial(N s, 1/N) (others: Binomial((N-1) s, 1/(N-1)));
    it is over-committed when K > floor(capacity / rate). ``p_any`` (some output over-committed) is exact for
    ``all`` (a uniform multinomial, cells as Poisson conditioned on the total); for ``others`` the outputs are
    treated as independent (1 - (1 - p)^N). ``targets_per_node`` > 1 asks the same of each destination VC
    (m_rt of them, a stream picking one uniformly) with ``capacity`` the VC's share (the paper's "bandwidth
    available to a VC", link / m).

    Real-time traffic has priority under FGVC, so capacity 1 asks whether video alone over-reserves; capacity
    1 - best-effort load asks whether best effort saturates at that output (it then has no stable latency).

    Examples
    --------
    >>> o = overcommit(8, 76, 0.010529)                 # Fig. 5, 80:20 at 0.96: 608 streams, at most 94 per output
    >>> o.max_streams, o.mean_per_output, round(o.p_output, 4), round(o.p_any, 4)
    (94, 76.0, 0.0135, 0.1064)
    >>> round(overcommit(8, 76, 0.010529, capacity=1 - 0.192).p_any, 3)     # best effort saturates somewhere
    1.0
    """
    n = _check.integer("nodes", nodes, 1, 4096)
    s = _check.integer("streams_per_input", streams_per_input, 0, 1 << 20)
    r = _check.real("stream_rate", stream_rate, 0.0, 1.0, low_open=True)
    c = _check.real("capacity", capacity, 0.0, 1.0)
    _check.choice("destinations", destinations, ("all", "others"))
    m = _check.integer("targets_per_node", targets_per_node, 1, 256)
    if destinations == "others" and n < 2:
        raise InputError("nodes", n, "at least 2 with destinations others")
    total = n * s
    kmax = int(math.floor(c / r + 1e-9))
    trials, cells = (total, n * m) if destinations == "all" else ((n - 1) * s, (n - 1) * m)
    p = _binom_sf(kmax, trials, 1.0 / cells) if trials else 0.0
    if destinations == "all":
        p_any = 1.0 - _multinomial_max_cdf(total, n * m, kmax) if total else 0.0
        how = "exact: uniform multinomial, Poisson cells conditioned on their sum"
    else:
        p_any = 1.0 - (1.0 - p) ** (n * m)
        how = "outputs treated as independent"
    return Overcommit(total, kmax, trials / cells, p, p_any, n * m * p,
                      f"K ~ Binomial({trials}, 1/{cells}) per {'output' if m == 1 else 'output VC'}, over-committed "
                      f"when K > {kmax}; p_any {how}")


@dataclass(frozen=True)
class FrameInterval:
    """The frame delivery interval pooled over streams when some outputs are over-committed (seconds)."""

    d_mean: float
    d_sd_between: float
    share_jitter_free: float
    method: str
    source: str = PAPER + " §IV-A (d, sigma_d)"


def overcommit_frame_interval(nodes: int, streams_per_input: int, stream_rate: float, frame_period: float,
                              capacity: float = 1.0, destinations: str = "all") -> FrameInterval:
    """What over-commitment does to the frame delivery interval d, to first order.

    An output reserved K r > capacity serves its streams in proportion to their reservations (VirtualClock
    with equal rates), so each gets capacity / K of the link and, over a run long against the backlog's
    growth, delivers frames K r / capacity times slower than they are made: d = T max(1, K r / capacity),
    T the frame period. A stream picked at random sits at an output with K' = 1 + Binomial(N s - 1, 1/N)
    streams (size-biased); ``d_mean`` = T E[max(1, K' r / c)], ``d_sd_between`` its spread across streams
    (a floor for the pooled sigma_d: within-stream jitter adds to it), ``share_jitter_free`` = P(K' r <= c).
    Not modelled: wormhole back-pressure, which lets a blocked output hold input VCs shared with streams to
    other outputs and so spreads the slowdown (the simulator measures it).

    Examples
    --------
    >>> f = overcommit_frame_interval(8, 76, 0.010529, 1 / 30)
    >>> round(f.d_mean * 1e3, 3), round(f.d_sd_between * 1e3, 3), round(f.share_jitter_free, 4)
    (33.35, 0.181, 0.9827)
    >>> round(overcommit_frame_interval(8, 96, 0.010529, 1 / 30).d_mean * 1e3, 2)     # 100:0 at 0.96
    34.97
    """
    from scipy.stats import binom

    n = _check.integer("nodes", nodes, 1, 4096)
    s = _check.integer("streams_per_input", streams_per_input, 1, 1 << 20)
    r = _check.real("stream_rate", stream_rate, 0.0, 1.0, low_open=True)
    t = _check.real("frame_period", frame_period, 0.0, 10.0, low_open=True)
    c = _check.real("capacity", capacity, 0.0, 1.0, low_open=True)
    trials, cells = (n * s - 1, n) if destinations == "all" else ((n - 1) * s - 1, n - 1)
    k = np.arange(trials + 1)
    w = binom.pmf(k, trials, 1.0 / cells)
    slow = np.maximum(1.0, (k + 1) * r / c)
    mean = float(w @ slow)
    sd = float(math.sqrt(max(0.0, w @ (slow - mean) ** 2)))
    free = float(w[(k + 1) * r <= c + 1e-12].sum())
    return FrameInterval(t * mean, t * sd, free,
                         "fluid: an over-committed output shares its link in proportion to reservations; "
                         "size-biased stream count per output; no spreading by back-pressure")


# --------------------------------------------------------------------------- best effort

@dataclass(frozen=True)
class BestEffort:
    """Best-effort mean message latency (creation to tail arrival), cycles and seconds; inf when saturated."""

    cycles: float
    seconds: float
    realtime_load: float
    best_effort_load: float
    saturated: bool
    method: str
    source: str = COBHAM


def best_effort_latency(router, traffic, hops: int = 1, servers: int | None = None,
                        realtime_load: float | None = None) -> BestEffort:
    """Mean best-effort message latency as a queueing approximation.

    FGVC (and FGFQ) give best effort the largest Vtick, so at every flit-level choice real-time flits go
    first: best effort sees strict preemptive-resume priority. Each of ``servers`` links on the path
    (default hops + 1: the source's injection link, where best-effort messages queue behind the node's video,
    and each router's output link) is taken as an independent M/G/1 queue (Kleinrock's independence
    approximation) of M-flit messages with two classes, Poisson arrivals (the superposed regulated streams
    are smoother than Poisson), and the low class's time in system (Cobham; Kleinrock vol. 2 §3.7)

        T = M / (1 - r1) + R / ((1 - r1)(1 - r1 - r2)),  R = (r1 + r2) M / 2,

    of which M is already in the zero-load latency; latency = zero-load + servers x (T - M). The FIFO router
    serves both classes first come first served: M/D/1, W = (r1 + r2) M / (2 (1 - r1 - r2)). r1 is the
    real-time load on the wire (headers included), r2 the best-effort load. Saturated (inf) when r1 + r2 >= 1.
    Its error is to be measured by the simulator. Against Table V (:func:`table_v_comparison`) its ratio
    to the paper is 0.61-1.11 up to load 0.9 (0.85-1.09 at 0.6-0.7) except 90:10 at 0.8 (46 us for 106); at
    0.96 it reads high for 20:80 and 50:50 (63 and 223 us for 44 and 65), and the paper's "Sat." points are
    where random placement over-commits some output's link (``p_saturated``), not the mean load.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> b = best_effort_latency(WormholeRouter(), WormholeTraffic(0.6, (20, 80)))
    >>> round(b.seconds * 1e6, 2), round(b.realtime_load, 4)          # Table V: 6.3 us
    (5.36, 0.1263)
    >>> round(best_effort_latency(WormholeRouter(), WormholeTraffic(0.6, (20, 80)), servers=1).seconds * 1e6, 2)
    3.72
    >>> best_effort_latency(WormholeRouter(), WormholeTraffic(0.96, (90, 10))).saturated   # Table V: Sat.
    True
    """
    h = _check.integer("hops", hops, 1, 64)
    k = h + 1 if servers is None else _check.integer("servers", servers, 1, 128)
    m = traffic.message_flits
    if realtime_load is None:
        r1 = 0.0
        if traffic.realtime_load > 0:
            r1 = wt.streams_per_input(router, traffic) * wt.wire_rate(traffic.streams, traffic, router)
    else:
        r1 = _check.real("realtime_load", realtime_load, 0.0, 1.0)
    r2 = traffic.best_effort_load
    zero = zero_load_latency(router, m, h).cycles
    rho = r1 + r2
    if router.scheduler == "fifo":
        how = "M/D/1 FCFS per link (FIFO router)"
        wait = math.inf if rho >= 1 else rho * m / (2 * (1 - rho))
    else:
        how = "M/G/1 preemptive-resume priority per link, best effort low (Cobham)"
        if rho >= 1:
            wait = math.inf
        else:
            wait = m / (1 - r1) + rho * m / 2 / ((1 - r1) * (1 - rho)) - m
    cycles = zero + k * wait
    return BestEffort(cycles, cycles * router.cycle_seconds, r1, r2, not math.isfinite(cycles),
                      f"zero-load + {k} x wait, {how}")


def table_v_comparison(router=None, servers: int | None = None) -> list[dict]:
    """:func:`best_effort_latency` beside Table V (8 x 8, 16 VCs, 400 Mbit/s, M = 20, synthetic VBR): one row
    per (mix, load) with the paper's us (None: "Sat."), the model's us at the mean load (inf: saturated),
    their ratio, and ``p_saturated``: the probability that random placement leaves some output with video
    plus best effort above its link (:func:`overcommit` with capacity 1 - best-effort load), where best
    effort has no steady latency. The paper's three "Sat." points have p_saturated >= 0.978; but so have
    80:20 at 0.9 (0.97; 107 us in the paper) and 50:50 at 0.96 (1.0; 64.6 us), where a finite run still
    reports a number.

    Examples
    --------
    >>> rows = table_v_comparison()
    >>> [(r["mix"], r["load"], r["paper_us"], round(r["model_us"], 1)) for r in rows[:3]]
    [('20:80', 0.6, 6.3, 5.4), ('20:80', 0.7, 9.0, 7.2), ('20:80', 0.8, 16.2, 10.8)]
    >>> [round(r["p_saturated"], 3) for r in rows if r["paper_us"] is None]
    [1.0, 0.978, 1.0]
    """
    from switchq.models.wormhole import WormholeRouter, WormholeTraffic

    router = WormholeRouter() if router is None else router
    rows = []
    for mix, values in TABLE_V.items():
        for load, paper in zip(TABLE_V_LOADS, values):
            t = WormholeTraffic(load, mix)
            b = best_effort_latency(router, t, servers=servers)
            us = b.seconds * 1e6
            s = wt.streams_per_input(router, t)
            cap = 1.0 - t.best_effort_load
            sat = 1.0 if b.saturated else overcommit(router.n_ports, s, wt.wire_rate(t.streams, t, router), cap).p_any
            rows.append({"mix": f"{mix[0]}:{mix[1]}", "load": load, "paper_us": paper, "model_us": us,
                         "ratio": (us / paper) if paper and math.isfinite(us) else None, "p_saturated": sat})
    return rows


# --------------------------------------------------------------------------- PCS

@dataclass(frozen=True)
class PcsFill:
    """Connection attempts expected to establish ``established`` PCS connections."""

    established: int
    channels: int
    attempts: float
    dropped: float
    drop_share: float
    method: str
    source: str = PAPER + " §III-F, §IV-B.1, Table VI"


def pcs_fill(established: int, nodes: int = 8, vcs: int = 24) -> PcsFill:
    """Attempts needed to set up ``established`` connections when connections never end (a static loss model).

    Assumptions (§IV-B.1's placement, no adaptive routing, no retry): the source takes a free VC of its own
    input link; the destination node and the destination VC are uniform, so an attempt names one of the
    ``nodes x vcs`` output VCs at random and is dropped iff a connection holds it. With j established, an
    attempt succeeds with probability 1 - j / S (S = nodes x vcs): attempts to reach n are a sum of
    geometrics, mean S (H_S - H_(S-n)). Table VI (S = 192) drops far more at low load than this (56 % of
    attempts at 0.37 against 20 %): the paper's probes also fail for reasons beyond VC occupancy, which the
    simulator's probes will show.

    Examples
    --------
    >>> f = pcs_fill(187)                           # Table VI at 0.91: 718 attempted, 531 dropped
    >>> round(f.attempts, 1), round(f.drop_share, 3)
    (682.4, 0.726)
    >>> round(pcs_fill(73).drop_share, 3)            # at 0.37 the paper drops 93 of 166 (0.56)
    0.203
    """
    nd = _check.integer("nodes", nodes, 1, 4096)
    v = _check.integer("vcs", vcs, 1, 4096)
    total = nd * v
    n = _check.integer("established", established, 0, total - 1)
    attempts = float(sum(total / (total - j) for j in range(n)))
    return PcsFill(n, total, attempts, attempts - n, (attempts - n) / attempts if attempts else 0.0,
                   f"static fill: attempt j+1 succeeds w.p. 1 - j/{total}; mean attempts S (H_S - H_(S-n))")


def erlang_b(servers: int, offered: float) -> float:
    """Erlang's loss formula B(c, A) by the stable recursion B(k) = A B(k-1) / (k + A B(k-1)).

    Examples
    --------
    >>> round(erlang_b(24, 20.0), 5), round(erlang_b(1, 1.0), 2)
    (0.0661, 0.5)
    """
    c = _check.integer("servers", servers, 0, 1 << 20)
    a = _check.real("offered", offered, 0.0)
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


def pcs_erlang(load: float, vcs: int = 24, link_rate: float = 100e6, stream_rate: float = 4e6) -> dict:
    """Erlang-B reading of PCS blocking: connections arrive at each output link as a Poisson stream and hold a
    VC each for a generic time (Erlang B is insensitive to its law); the offered load A (erlangs) is the one
    whose carried load A (1 - B) equals the streams the input ``load`` implies, load x link / stream per link
    (0.91 at 100 Mbit/s: 22.75 of 24 VCs). Returns the offered A and the blocking B(vcs, A). A different
    process from Table VI's (there, connections never end), so it can only be compared in shape.

    Examples
    --------
    >>> e = pcs_erlang(0.91)
    >>> round(e["offered"], 2), round(e["blocking"], 3)
    (39.09, 0.418)
    """
    from scipy.optimize import brentq

    carried = _check.real("load", load, 0.0, 1.0) * link_rate / stream_rate
    v = _check.integer("vcs", vcs, 1, 4096)
    if carried >= v:
        raise InputError("load", load, f"below {v * stream_rate / link_rate:g} ({v} VCs of {stream_rate:g} bit/s)")
    if carried == 0:
        return {"offered": 0.0, "blocking": 0.0, "carried": 0.0}
    a = brentq(lambda x: x * (1 - erlang_b(v, x)) - carried, carried, 1e6)
    return {"offered": a, "blocking": erlang_b(v, a), "carried": carried}


def table_vi_comparison(nodes: int = 8, vcs: int = 24) -> list[dict]:
    """Table VI beside the loss models: per load, the paper's attempted / established / dropped, the streams
    the load implies (load x 8 links x 25 streams of 4 Mbit/s), the static-fill model's attempts and drop
    share for the paper's established count, and Erlang B's blocking.

    The established counts follow the load (load x 200 within 3 %) except at 0.64 (107 for 128).

    Examples
    --------
    >>> rows = table_vi_comparison()
    >>> [(r["load"], r["established"], r["implied"]) for r in rows[:2]]
    [(0.91, 187, 182.0), (0.87, 175, 174.0)]
    >>> [(r["load"], round(r["paper_drop_share"], 2), round(r["fill_drop_share"], 2)) for r in rows[::4]]
    [(0.91, 0.74, 0.73), (0.67, 0.6, 0.41)]
    """
    rows = []
    for load, (att, est, drop) in TABLE_VI.items():
        f = pcs_fill(est, nodes, vcs)
        rows.append({"load": load, "attempted": att, "established": est, "dropped": drop,
                     "implied": load * nodes * 100e6 / 4e6, "paper_drop_share": drop / att,
                     "fill_attempts": f.attempts, "fill_drop_share": f.drop_share,
                     "erlang_blocking": pcs_erlang(load, vcs)["blocking"]})
    return rows


# --------------------------------------------------------------------------- one configuration

def answers(network, traffic) -> dict:
    """Every analytic answer for one configuration, named, with a ``units`` object (``switchq solve wormhole``).

    Hops are the mean over uniform destinations (1 on one router; 2 on the fat mesh, whose links between
    routers carry on average the node links' load under dimension-order routing, so the best-effort model's
    servers are alike); the over-commitment figures are for the node outputs (the links between routers
    carry a random subset of the streams, which the simulator measures), with mpeg2 streams of different
    sequences counted at their mean rate. PCS adds the loss model for its established streams.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeNetwork, WormholeTraffic
    >>> a = answers(WormholeNetwork(), WormholeTraffic(0.96, (80, 20)))
    >>> a["zero_load_latency_us"], a["streams_per_input"], round(a["fgvc_bound_us"], 1)
    (2.08, 76, 158.4)
    >>> round(a["p_overcommit_any"], 3), round(a["frame_interval_mean_ms"], 3), a["best_effort_saturated"]
    (0.106, 33.35, False)
    >>> round(a["p_best_effort_saturated"], 3)
    1.0
    """
    router = network.router
    st = traffic.streams
    hops = mean_hops(network, traffic.destinations)
    h_int = max(1, int(round(hops)))
    z = zero_load_latency(router, traffic.message_flits, hops)
    out = {"hops": hops, "cycle_ns": router.cycle_seconds * 1e9, "zero_load_latency_cycles": z.cycles,
           "zero_load_latency_us": round(z.seconds * 1e6, 9)}
    s = wt.streams_per_input(router, traffic) if traffic.realtime_load > 0 else 0
    out["streams_per_input"] = s
    out["realtime_vcs"] = traffic.realtime_vcs(router.vcs)
    out["sigma_d_floor_ms"] = wt.regulator_interval_sd(st, traffic, router.flit_bits) * 1e3
    if s:
        rate = sum(wt.wire_rate(st, traffic, router, q) for q in st.sequences) / len(st.sequences) \
            if st.kind == "mpeg2" else wt.wire_rate(st, traffic, router)
        b = fgvc_delay_bound(router, traffic, h_int)
        out.update(stream_wire_rate=rate, vtick_cycles=b.vtick, fgvc_bound_cycles=b.bound_cycles,
                   fgvc_bound_us=b.bound_seconds * 1e6, jitter_bound_ms=b.jitter_bound_seconds * 1e3,
                   reserved_input_load=b.reserved_input_load)
        cap = 1.0 if router.scheduler != "fifo" else max(1e-9, 1.0 - traffic.best_effort_load)
        o = overcommit(network.nodes, s, rate, cap, traffic.destinations)
        f = overcommit_frame_interval(network.nodes, s, rate, st.frame_period, cap, traffic.destinations)
        out.update(max_streams_per_output=o.max_streams, p_overcommit_output=o.p_output, p_overcommit_any=o.p_any,
                   frame_interval_mean_ms=f.d_mean * 1e3, frame_interval_sd_between_ms=f.d_sd_between * 1e3,
                   share_jitter_free=f.share_jitter_free)
        if traffic.best_effort_load > 0:
            be = overcommit(network.nodes, s, rate, max(1e-9, 1.0 - traffic.best_effort_load), traffic.destinations)
            out["p_best_effort_saturated"] = be.p_any
    if traffic.best_effort_load > 0:
        be = best_effort_latency(router, traffic, h_int)
        out.update(best_effort_latency_us=be.seconds * 1e6, best_effort_saturated=be.saturated)
    if router.switching == "pcs" and s:
        est = min(s * network.nodes, network.nodes * router.vcs - 1)
        f = pcs_fill(est, network.nodes, router.vcs)
        out.update(pcs_established=est, pcs_attempts=f.attempts, pcs_dropped=f.dropped,
                   pcs_setup_cycles=pcs_setup_cycles(router, h_int))
    out["units"] = {k: u for k, u in _UNITS.items() if k in out}
    return out


_UNITS = {"hops": "routers", "cycle_ns": "ns", "zero_load_latency_cycles": "cycles", "zero_load_latency_us": "us",
          "streams_per_input": "streams", "realtime_vcs": "VCs", "sigma_d_floor_ms": "ms",
          "stream_wire_rate": "flits/cycle", "vtick_cycles": "cycles/flit", "fgvc_bound_cycles": "cycles",
          "fgvc_bound_us": "us", "jitter_bound_ms": "ms", "reserved_input_load": "flits/cycle",
          "max_streams_per_output": "streams", "p_overcommit_output": "1", "p_overcommit_any": "1",
          "frame_interval_mean_ms": "ms", "frame_interval_sd_between_ms": "ms", "share_jitter_free": "1",
          "p_best_effort_saturated": "1", "best_effort_latency_us": "us", "best_effort_saturated": "",
          "pcs_established": "connections", "pcs_attempts": "attempts", "pcs_dropped": "attempts",
          "pcs_setup_cycles": "cycles"}
