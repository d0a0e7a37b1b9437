"""What load does to MediaWorm routers (paper 004 §IV-B, §V, Tables V-VI): over-commitment, best effort, PCS loss.

Companion of :mod:`switchq.solvers.wormhole` (pipeline latency and the FGVC
bound); each answer a frozen result naming its method and source:

- :func:`overcommit`: admission is only at the input link and destinations
  are random, so an output may be reserved beyond its bandwidth; the
  probability of that from the placement (binomial per output, exact
  multinomial for "any output"), and what it does to the frame interval d
  (:func:`overcommit_frame_interval`).
- :func:`best_effort_latency`: best effort under strict (flit-level,
  preemptive) priority as M/G/1 preemptive-resume priority queues on the
  links it crosses (Cobham's formula); FCFS M/D/1 for the FIFO router. An
  approximation whose error the simulator is to measure;
  :func:`table_v_comparison` sets it beside Table V.
- :func:`pcs_fill` and :func:`erlang_b` / :func:`pcs_erlang`: PCS connection
  blocking as loss models over the VCs; :func:`table_vi_comparison` beside
  Table VI.

Loads and rates are shares of the link bandwidth (flits per cycle); times
cycles with seconds beside them.

Examples
--------
>>> round(overcommit(8, 76, 0.010529).p_any, 3)        # Fig. 5's placement at 0.96, 80:20
0.106
>>> round(pcs_fill(187).attempts)                       # Table VI at 0.91: 718 attempted
682
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from switchq.errors import InputError
from switchq.models import _check

from . import wormhole_traffic as wt
from .wormhole import COBHAM, PAPER, zero_load_latency

__all__ = ["Overcommit", "overcommit", "FrameInterval", "overcommit_frame_interval", "BestEffort",
           "best_effort_latency", "table_v_comparison", "PcsFill", "pcs_fill", "erlang_b", "pcs_erlang",
           "table_vi_comparison", "TABLE_V", "TABLE_V_LOADS", "TABLE_VI"]

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
               destinations: str = "all", targets_per_node: int = 1, streams: int | None = None) -> Overcommit:
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
    ``streams``: the streams in all when inputs carry different counts (:func:`~switchq.models.wormhole_placement.stream_total`;
    each still picks its destination uniformly), instead of ``nodes x streams_per_input``.

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
    total = n * s if streams is None else _check.integer("streams", streams, 0, 1 << 24)
    kmax = int(math.floor(c / r + 1e-9))
    trials, cells = (total, n * m) if destinations == "all" else ((n - 1) * total // n, (n - 1) * m)
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
                              capacity: float = 1.0, destinations: str = "all",
                              streams: int | None = None) -> FrameInterval:
    """What over-commitment does to the frame delivery interval d, to first order.

    An output reserved K r > capacity serves its streams in proportion to their reservations (VirtualClock
    with equal rates), so each gets capacity / K of the link and, over a run long against the backlog's
    growth, delivers frames K r / capacity times slower than they are made: d = T max(1, K r / capacity),
    T the frame period. A stream picked at random sits at an output with K' = 1 + Binomial(N s - 1, 1/N)
    streams (size-biased); ``d_mean`` = T E[max(1, K' r / c)], ``d_sd_between`` its spread across streams
    (a floor for the pooled sigma_d: within-stream jitter adds to it), ``share_jitter_free`` = P(K' r <= c).
    ``streams``: the streams in all, as :func:`overcommit`.
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
    total = n * s if streams is None else _check.integer("streams", streams, 1, 1 << 24)
    trials, cells = (total - 1, n) if destinations == "all" else ((n - 1) * total // n - 1, n - 1)
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
        if traffic.realtime_load > 0:     # the mean input's video: the streams drawn over the router's inputs
            r1 = (wt.stream_total(router.n_ports, router, traffic) / router.n_ports
                  * wt.wire_rate(traffic.streams, traffic, router))
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
            s = wt.stream_total(router.n_ports, router, t)
            cap = 1.0 - t.best_effort_load
            sat = 1.0 if b.saturated else overcommit(router.n_ports, 1, wt.wire_rate(t.streams, t, router), cap,
                                                     streams=s).p_any
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
