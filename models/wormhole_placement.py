"""Where MediaWorm's streams and best-effort messages go (paper 004 §IV-B.2, §IV-B.3; PCS §III-F).

Plain NumPy, no simulation: admission at the input link and the random
draws that place traffic on a router or network, with the
``numpy.random.Generator`` passed in, so one seed gives one placement.

- :func:`stream_total` and :func:`stream_counts`: the real-time streams a
  run draws, round(real-time load / stream rate x nodes) in all, per-input
  counts differing by at most one (admission only at the input link,
  §IV-B.3), and :func:`effective_load`, the load they offer;
  :func:`streams_per_input` the busiest input's count.
- :func:`place_streams`: streams per input, their input VC, random
  destination and destination VC, phases.
- :func:`pcs_placement`: PCS connections, one VC each, probes dropped when
  the output VC is held (§III-F).
- :func:`best_effort_messages`: Poisson best-effort messages with random
  destinations and VCs (§IV-B.2).

The traffic's description, so it is here: the solvers (:mod:`switchq.solvers.wormhole`) and the
flit kernel (:mod:`switchq.validate.arch.flit`) both read it, neither from the other.

Examples
--------
>>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
>>> stream_counts(8, WormholeRouter(), WormholeTraffic(0.5, (50, 50))).tolist()   # 0.25 / 0.0099996 x 8 = 200.0
[25, 25, 25, 25, 25, 25, 25, 25]
>>> pcs = WormholeRouter(vcs=24, link_rate=100e6, switching="pcs")
>>> [stream_total(8, pcs, WormholeTraffic(x, (100, 0))) for x in (0.64, 0.67)]      # 0.04 of the link a stream
[128, 134]
>>> round(effective_load(8, pcs, WormholeTraffic(0.67, (100, 0))), 4)
0.67
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .wormhole import VideoStreams
from .wormhole_frames import wire_rate

__all__ = ["stream_rate", "stream_total", "stream_counts", "effective_load", "streams_per_input", "place_streams",
           "pcs_placement", "best_effort_messages", "StreamPlacement", "BestEffortMessages"]


def stream_rate(router, traffic) -> float:
    """One stream's rate as admission counts it, a share of the link: ``nominal_rate / link_rate`` (``load_basis``
    nominal) or :func:`wire_rate` with headers (wire); mpeg2: the mean over its sequences."""
    st = traffic.streams
    if traffic.load_basis == "nominal":
        return st.nominal_rate / router.link_rate
    rates = [wire_rate(st, traffic, router, s) for s in (st.sequences if st.kind == "mpeg2" else (None,))]
    return sum(rates) / len(rates)


def stream_total(nodes: int, router, traffic, rate: float | None = None) -> int:
    """Real-time streams a run of ``nodes`` inputs draws in all: ``round(realtime_load / rate x nodes)``, the
    whole number of streams nearest the real-time load (admission only at the input link, §IV-B.3), so two
    loads a stream's share apart never run the same streams. 400 Mbit/s, 80:20 at 0.96: 614 (76.8 an input).

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> stream_total(8, WormholeRouter(), WormholeTraffic(0.96, (80, 20)))
    614
    >>> stream_total(8, WormholeRouter(), WormholeTraffic(0.96, (80, 20), load_basis="wire"))
    584
    """
    if traffic.realtime_load <= 0:
        return 0
    rate = stream_rate(router, traffic) if rate is None else rate
    return int(math.floor(traffic.realtime_load / rate * nodes + 0.5 + 1e-9))


def stream_counts(nodes: int, router, traffic, rate: float | None = None) -> np.ndarray:
    """Streams at each of ``nodes`` inputs (int64): :func:`stream_total` shared so that counts differ by at most
    one, the inputs carrying one more spread evenly over the node numbers (input ``v`` has one more where
    ``floor((v + 1) e / N)`` steps, ``e`` the remainder): no random draw, so a whole number of streams an input
    draws the same random numbers as before. 100 Mbit/s at 0.67: 134 streams, six inputs of 17 and two of 16.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> stream_counts(8, WormholeRouter(link_rate=100e6), WormholeTraffic(0.67, (100, 0))).tolist()
    [16, 17, 17, 17, 16, 17, 17, 17]
    """
    total = stream_total(nodes, router, traffic, rate)
    base, extra = divmod(total, nodes)
    v = np.arange(nodes, dtype=np.int64)
    return base + ((v + 1) * extra // nodes - v * extra // nodes)


def effective_load(nodes: int, router, traffic) -> float:
    """The load a run offers, as the paper counts load: :func:`stream_total` streams at their rate (nominal or
    wire, as ``load_basis``) shared over the ``nodes`` inputs, plus the best-effort load; ``load`` rounded to
    whole streams. mpeg2 draws its sequences per input at random, so its effective load is the run's."""
    if traffic.realtime_load <= 0:
        return traffic.best_effort_load
    rate = stream_rate(router, traffic)
    return stream_total(nodes, router, traffic, rate) * rate / nodes + traffic.best_effort_load


def streams_per_input(router, traffic, stream_rate: float | None = None, nodes: int | None = None) -> int:
    """The most real-time streams an input carries: the busiest count of :func:`stream_counts` over ``nodes``
    inputs (default ``router.n_ports``, one router), the input the FGVC bound's admission asks about.
    400 Mbit/s, 80:20 at 0.96: 77 (614 streams over 8 inputs).

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> streams_per_input(WormholeRouter(), WormholeTraffic(0.96, (80, 20)))
    77
    >>> streams_per_input(WormholeRouter(), WormholeTraffic(0.96, (80, 20), load_basis="wire"))
    73
    """
    n = router.n_ports if nodes is None else nodes
    return int(stream_counts(n, router, traffic, stream_rate).max()) if traffic.realtime_load > 0 else 0


@dataclass(frozen=True, eq=False)
class StreamPlacement:
    """Streams, one row each (int64 arrays): ``source`` node, ``input_vc`` (0..m_rt-1, the real-time VCs),
    ``dest`` node, ``dest_vc``, ``sequence`` (mpeg2's Table III row, else 0), ``gop_phase`` (mpeg2), and
    ``phase`` (float64, seconds: the first frame's start)."""

    source: np.ndarray
    input_vc: np.ndarray
    dest: np.ndarray
    dest_vc: np.ndarray
    sequence: np.ndarray
    gop_phase: np.ndarray
    phase: np.ndarray
    realtime_vcs: int

    @property
    def streams(self) -> int:
        return len(self.source)

    def per_output(self, nodes: int) -> np.ndarray:
        """Streams addressed to each node."""
        return np.bincount(self.dest, minlength=nodes)


def _destinations(rng, sources, nodes, destinations):
    if destinations == "all":
        return rng.integers(0, nodes, len(sources))
    d = rng.integers(0, nodes - 1, len(sources))
    return d + (d >= sources)


def _capped_destinations(rng, sources, input_vc, nodes, m_rt, destinations):
    """``placement="capped"``: streams in a random order, each drawing its (destination, destination VC)
    uniformly among the pairs holding fewer streams than the busiest input VC carries, at nodes receiving
    fewer than the busiest source sends (§IV-B.3's "at most 6 connections per VC ... at most 6 x 8 = 48
    outstanding/incoming streams at each node", read at the destination too). Where no such pair remains
    (the last streams of a source that may not send to itself), among the least-filled pairs of the least-
    filled nodes: one holds a stream more."""
    if len(sources) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    cap_vc = int(np.bincount(sources * m_rt + input_vc).max())
    cap_node = int(np.bincount(sources).max())
    count = np.zeros(nodes * m_rt, dtype=np.int64)
    at_node = np.zeros(nodes, dtype=np.int64)
    dest = np.zeros(len(sources), dtype=np.int64)
    dest_vc = np.zeros(len(sources), dtype=np.int64)
    node_of = np.arange(nodes * m_rt) // m_rt
    for j in rng.permutation(len(sources)):
        others = node_of != sources[j] if destinations == "others" else np.ones(nodes * m_rt, dtype=bool)
        allowed = others & (count < cap_vc) & (at_node[node_of] < cap_node)
        if not allowed.any():
            load = at_node[node_of] * (cap_vc + 1) + count     # the node's fill first, then the pair's
            allowed = others & (load == load[others].min())
        pairs = np.flatnonzero(allowed)
        pick = int(pairs[rng.integers(len(pairs))])
        dest[j], dest_vc[j] = divmod(pick, m_rt)
        count[pick] += 1
        at_node[dest[j]] += 1
    return dest, dest_vc


def place_streams(nodes: int, router, traffic, rng: np.random.Generator) -> StreamPlacement:
    """Streams at every input as §IV-B says: as many as the real-time load admits at the input link
    (:func:`stream_counts`: the nearest whole number of streams in all, inputs differing by one at most;
    mpeg2: sequences drawn uniformly from ``sequences`` and added while their rates fit, stopping at the first
    that does not), spread evenly over the input's real-time VCs (stream
    ``i`` on VC ``i mod m_rt``: the paper fixes the input VC first and gives no rule), a destination
    uniform over the nodes (``destinations``) and a destination VC uniform over the real-time VCs, or with
    ``placement="capped"`` no (node, VC) pair taking more streams than the busiest input VC carries nor a
    node more than the busiest source sends (:func:`_capped_destinations`); each
    stream's first frame starts at a uniform phase in one frame period (mpeg2 also a uniform GOP phase).

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> p = place_streams(8, WormholeRouter(), WormholeTraffic(0.96, (80, 20)), np.random.default_rng(3))
    >>> p.streams, p.realtime_vcs, int(p.per_output(8).sum()), int(p.input_vc.max())
    (614, 13, 614, 12)
    """
    st = traffic.streams
    m_rt = traffic.realtime_vcs(router.vcs)
    if m_rt == 0 or traffic.realtime_load == 0:
        z = np.zeros(0, dtype=np.int64)
        return StreamPlacement(z, z, z, z, z, z, np.zeros(0), m_rt)
    sources, seqs = [], []
    rates = {}
    if st.kind == "mpeg2":
        # Each sequence's rate once (the wire rate is a quadrature over its GOP).
        for q in st.sequences:
            one = VideoStreams("mpeg2", gop=st.gop, frame_cv=st.frame_cv, sequences=(q,),
                               frame_period=st.frame_period, regulator_span=st.regulator_span)
            rates[q] = (one.nominal_rate / router.link_rate if traffic.load_basis == "nominal"
                        else wire_rate(one, traffic, router))
    counts = stream_counts(nodes, router, traffic) if st.kind != "mpeg2" else None
    for v in range(nodes):
        if st.kind != "mpeg2":
            n = int(counts[v])
            sources.append(np.full(n, v, dtype=np.int64))
            seqs.append(np.zeros(n, dtype=np.int64))
            continue
        budget, picked = traffic.realtime_load, []
        while True:
            s = int(st.sequences[rng.integers(len(st.sequences))])
            rate = rates[s]
            if rate > budget + 1e-12:
                break
            budget -= rate
            picked.append(s)
        sources.append(np.full(len(picked), v, dtype=np.int64))
        seqs.append(np.array(picked, dtype=np.int64))
    source = np.concatenate(sources)
    sequence = np.concatenate(seqs)
    first = np.concatenate([np.arange(len(s)) for s in sources])
    input_vc = first % m_rt
    if traffic.placement == "capped":
        dest, dest_vc = _capped_destinations(rng, source, input_vc, nodes, m_rt, traffic.destinations)
    else:
        dest = _destinations(rng, source, nodes, traffic.destinations)
        dest_vc = rng.integers(0, m_rt, len(source))
    phase = rng.random(len(source)) * st.frame_period
    gop_phase = rng.integers(0, len(st.gop), len(source)) if st.kind == "mpeg2" else np.zeros(len(source), np.int64)
    return StreamPlacement(source, input_vc.astype(np.int64), dest.astype(np.int64), dest_vc.astype(np.int64),
                           sequence, gop_phase.astype(np.int64), phase, m_rt)


def pcs_placement(nodes: int, router, traffic, rng: np.random.Generator):
    """PCS connections (§III-F, §IV-B.1): every source asks for its streams of :func:`stream_counts` (the
    nearest whole number in all, inputs differing by one at most), one input VC each, so at most its real-time
    VCs (a stream beyond them is refused at the source, no probe sent); a probe names a uniform
    destination and, with ``router.probe_vc`` ``named``, a uniform real-time VC there, and is dropped when a
    connection already holds that output VC; with ``any`` it takes a uniformly drawn free real-time VC there, and
    is dropped only when none is free (no adaptive routing, no retry of the same probe). Sources probe in a
    random order until each has its streams (or 100 x VCs probes failed). Returns ``(placement, attempted, established, dropped)``.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> r = WormholeRouter(vcs=24, link_rate=100e6, switching="pcs")
    >>> p, att, est, drop = pcs_placement(8, r, WormholeTraffic(0.91, (100, 0)), np.random.default_rng(1))
    >>> est, att == est + drop, p.streams                      # round(0.91 / 0.04 x 8) = 182
    (182, True, 182)
    """
    m_rt = traffic.realtime_vcs(router.vcs)
    want = np.minimum(stream_counts(nodes, router, traffic), m_rt)
    held = np.zeros((nodes, max(m_rt, 1)), dtype=bool)
    got = np.zeros(nodes, dtype=np.int64)
    fails = np.zeros(nodes, dtype=np.int64)
    rows = []
    attempted = dropped = 0
    while True:
        open_ = np.flatnonzero((got < want) & (fails < 100 * max(m_rt, 1)))
        if len(open_) == 0:
            break
        v = int(open_[rng.integers(len(open_))])
        if traffic.destinations == "all":
            dest = int(rng.integers(nodes))
        else:
            dest = int(rng.integers(nodes - 1))
            dest += dest >= v
        if router.probe_vc == "named":
            dvc = int(rng.integers(m_rt))
        else:
            free = np.flatnonzero(~held[dest, :m_rt])
            dvc = int(free[rng.integers(len(free))]) if len(free) else 0
        attempted += 1
        if held[dest, dvc]:
            dropped += 1
            fails[v] += 1
            continue
        held[dest, dvc] = True
        rows.append((v, int(got[v]), dest, dvc))
        got[v] += 1
    arr = np.array(rows, dtype=np.int64).reshape(-1, 4)
    order = np.lexsort((arr[:, 1], arr[:, 0]))
    arr = arr[order]
    n = len(arr)
    phase = rng.random(n) * traffic.streams.frame_period
    z = np.zeros(n, dtype=np.int64)
    placement = StreamPlacement(arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy(), arr[:, 3].copy(), z, z.copy(),
                                   phase, m_rt)
    return placement, attempted, n, dropped


@dataclass(frozen=True, eq=False)
class BestEffortMessages:
    """Best-effort messages in time order (int64 arrays): ``cycle``, ``source``, ``dest``, ``input_vc`` and
    ``dest_vc`` (indices among all the VCs: the best-effort ones are m_rt..m-1); every one ``message_flits`` long."""

    cycle: np.ndarray
    source: np.ndarray
    dest: np.ndarray
    input_vc: np.ndarray
    dest_vc: np.ndarray
    message_flits: int


def best_effort_messages(nodes: int, router, traffic, cycles: int, rng: np.random.Generator) -> BestEffortMessages:
    """Poisson best-effort messages at every input for ``cycles`` cycles (§IV-B.2): rate best-effort load / M
    per cycle (continuous-time arrivals, each counted in the cycle it falls in), destination uniform
    (``destinations``), input and output VC uniform over the best-effort VCs.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> b = best_effort_messages(8, WormholeRouter(), WormholeTraffic(0.5, (50, 50)), 100_000, np.random.default_rng(2))
    >>> round(len(b.cycle) / (8 * 100_000) * 20, 2), int(b.input_vc.min()), int(b.input_vc.max())
    (0.25, 8, 15)
    """
    rate = traffic.best_effort_messages_per_cycle
    m_rt = traffic.realtime_vcs(router.vcs)
    m_be = router.vcs - m_rt
    if rate <= 0 or m_be == 0 or cycles <= 0:
        z = np.zeros(0, dtype=np.int64)
        return BestEffortMessages(z, z, z, z, z, traffic.message_flits)
    counts = rng.poisson(rate * cycles, nodes)
    source = np.repeat(np.arange(nodes, dtype=np.int64), counts)
    # Given their number, Poisson arrival times are iid uniform on the window.
    cycle = np.floor(rng.random(len(source)) * cycles).astype(np.int64)
    order = np.argsort(cycle, kind="stable")
    cycle, source = cycle[order], source[order]
    dest = _destinations(rng, source, nodes, traffic.destinations).astype(np.int64)
    input_vc = m_rt + rng.integers(0, m_be, len(source))
    dest_vc = m_rt + rng.integers(0, m_be, len(source))
    return BestEffortMessages(cycle, source, dest, input_vc.astype(np.int64), dest_vc.astype(np.int64),
                              traffic.message_flits)
