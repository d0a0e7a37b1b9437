"""Video and best-effort traffic for MediaWorm routers, as arrays a kernel consumes (paper 004 §IV-B, Table III).

Plain NumPy, no Numba and no simulation: the draws and the arithmetic that
turn :mod:`switchq.models.wormhole`'s descriptions into what a flit-level
kernel injects. Random draws use the ``numpy.random.Generator`` passed in,
so one seed gives one stream of traffic whatever calls it.

- :func:`frame_sizes`: a stream's frame sizes in bits (cbr, vbr, mpeg2 surrogate).
- :func:`frame_messages`: how a frame is cut into messages of M flits (the
  last one shorter), with or without a header flit of overhead.
- :func:`frame_schedule` / :func:`injection_schedule`: the source
  regulator, per frame (start cycle, messages, spacing; what a kernel should
  hold) or expanded per message (cycle, flits, frame, last, Vtick).
- :func:`stream_frames`: every placed stream's frames for a run, in one
  CSR table (the kernel's real-time input: O(frames), not O(messages)).
- :func:`place_streams`: streams per input (admission only at the input
  link), their input VC, random destination and destination VC, phases.
- :func:`best_effort_messages`: Poisson best-effort messages with random
  destinations and VCs.
- :func:`mean_frame_flits`, :func:`wire_rate`: a stream's mean flits per
  frame and rate on the wire, headers included (quadrature over the frame
  size distribution, not sampling).
- :func:`regulator_interval_sd`: the s.d. of the frame interval with no
  jitter at all (the regulator's last-message offset varies with the frame).
- :func:`mpeg2_bandwidth_gap`: the surrogate's mean bandwidth against
  Table III's column, per sequence.

Times are cycles (one flit per link per cycle, :attr:`WormholeRouter.cycle_seconds`),
sizes bits, rates flits per cycle unless a name says otherwise.

Examples
--------
>>> import numpy as np
>>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
>>> s = injection_schedule(np.array([133_328]), WormholeRouter(), WormholeTraffic(0.5))
>>> len(s.cycle), s.flits[:2].tolist(), int(s.flits[-1]), round(float(s.vtick[0]), 2)
(220, [20, 20], 7, 93.75)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from switchq.errors import InputError
from switchq.models.wormhole import GOP_DEFAULT, STREAM_KINDS, TABLE_III, VideoStreams

__all__ = ["frame_sizes", "frame_messages", "frame_schedule", "injection_schedule", "place_streams", "pcs_placement",
           "best_effort_messages", "stream_frames", "StreamFrames", "mean_frame_flits", "wire_rate", "regulator_interval_sd", "mpeg2_mean_frame_bits", "mpeg2_bandwidth_gap",
           "streams_per_input", "FrameSchedule", "MessageSchedule", "StreamPlacement", "BestEffortMessages",
           "QUADRATURE_POINTS"]

# Quantile midpoints used for expectations over a frame-size distribution. Flits per frame is a step function
# of the size, so the midpoint rule's error falls as 1/n: about 1e-3 flits of 4387 here (1e-6 relative;
# the tests check it against 4x the points).
QUADRATURE_POINTS = 20_000
_TYPE = {"I": 1, "P": 2, "B": 3}            # column of TABLE_III holding the type's mean size


def _streams(kind_or_streams) -> VideoStreams:
    if isinstance(kind_or_streams, VideoStreams):
        return kind_or_streams
    if kind_or_streams not in STREAM_KINDS:
        raise InputError("kind", kind_or_streams, "one of " + ", ".join(STREAM_KINDS))
    return VideoStreams(kind_or_streams)


def _lognormal_params(cv: float) -> tuple[float, float]:
    """(mu, sigma) of a lognormal factor with mean 1 and coefficient of variation ``cv``."""
    s2 = math.log1p(cv * cv)
    return -s2 / 2.0, math.sqrt(s2)


def mpeg2_mean_frame_bits(sequence: int, gop: str = GOP_DEFAULT) -> float:
    """Mean frame size of the surrogate of Table III's ``sequence``, bits: the GOP's I, P, B counts weighting
    the table's mean sizes (kbit = 1000 bit).

    Examples
    --------
    >>> round(mpeg2_mean_frame_bits(1), 3)          # (430.2 + 3 x 295.6 + 8 x 194.2) / 12 kbit
    239216.667
    """
    if sequence not in TABLE_III:
        raise InputError("sequence", sequence, "a Table III sequence among 1..7")
    row = TABLE_III[sequence]
    return 1e3 * sum(row[_TYPE[c]] for c in gop) / len(gop)


def mpeg2_bandwidth_gap(gop: str = GOP_DEFAULT, frame_rate: float = 30.0) -> list[dict]:
    """Per Table III sequence: the table's average bandwidth, the surrogate's (frame rate x mean frame) and
    their relative gap. With the default GOP (N = 12, M = 3) every gap is within 1.21 % (sequence 3 is the
    worst; mean |gap| 0.38 %); N = 15, M = 3 is as close (within 1.08 %, mean |gap| 0.50 %), while GOPs
    with fewer B frames are 5-37 % off, so the table's sizes and bandwidths fit an IBB... GOP of 12-15.

    Source: paper 004 Table III; the GOP structure is MPEG-2's usual IBBPBBPBBPBB at 30 frames/s.

    Examples
    --------
    >>> [round(100 * r["gap"], 2) for r in mpeg2_bandwidth_gap()]
    [0.54, -0.06, -1.21, 0.08, 0.52, 0.2, 0.02]
    >>> [round(100 * r["gap"], 2) for r in mpeg2_bandwidth_gap("IBBPBBPBBPBBPBB")]      # N = 15: as close
    [-0.41, -0.58, -1.08, -0.23, -0.36, -0.49, -0.36]
    >>> max(abs(r["gap"]) for r in mpeg2_bandwidth_gap("IPPPPPPPPPPP")) > 0.2          # no B frames: far off
    True
    """
    rows = []
    for s, row in TABLE_III.items():
        table = row[0] * 1e3
        surrogate = frame_rate * mpeg2_mean_frame_bits(s, gop)
        rows.append({"sequence": s, "table_bps": table, "surrogate_bps": surrogate,
                     "gap": surrogate / table - 1.0})
    return rows


def frame_sizes(kind, n: int, rng: np.random.Generator, sequence: int | None = None, gop_phase: int = 0) -> np.ndarray:
    """``n`` successive frame sizes of one stream, bits (int64).

    ``kind`` is ``cbr``, ``vbr``, ``mpeg2`` or a :class:`VideoStreams` (its sizes, GOP and CV). cbr: every
    frame ``frame_bytes``; vbr: normal in whole bytes, mean ``frame_bytes``, s.d. ``frame_sd_bytes``,
    floored at 1 byte (mass below it: Phi(-5), about 3e-7); mpeg2: frame ``i`` has type ``gop[(gop_phase + i)
    % len(gop)]`` and size (the type's Table III mean of ``sequence``) x lognormal(mean 1, CV ``frame_cv``),
    rounded to whole bits.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> frame_sizes("cbr", 3, rng).tolist()
    [133328, 133328, 133328]
    >>> x = frame_sizes("vbr", 100_000, rng) / 8                  # bytes; the mean's s.e. is 10.5 B
    >>> bool(abs(x.mean() - 16_666) < 50 and abs(x.std() - 3_333) < 50)
    True
    >>> frame_sizes(VideoStreams("mpeg2", frame_cv=0.0), 4, rng, sequence=1).tolist()
    [430200, 194200, 194200, 295600]
    """
    st = _streams(kind)
    n = int(n)
    if n < 0:
        raise InputError("n", n, "an integer >= 0")
    if st.kind == "cbr":
        return np.full(n, 8 * st.frame_bytes, dtype=np.int64)
    if st.kind == "vbr":
        b = np.rint(rng.normal(st.frame_bytes, st.frame_sd_bytes, n))
        return 8 * np.maximum(b, 1).astype(np.int64)
    seq = st.sequences[0] if sequence is None else sequence
    if seq not in TABLE_III:
        raise InputError("sequence", seq, "a Table III sequence among 1..7")
    means = np.array([1e3 * TABLE_III[seq][_TYPE[c]] for c in st.gop])
    types = (int(gop_phase) + np.arange(n)) % len(st.gop)
    mu, sigma = _lognormal_params(st.frame_cv)
    factor = np.exp(mu + sigma * rng.standard_normal(n)) if sigma > 0 else np.ones(n)
    return np.maximum(np.rint(means[types] * factor), 1).astype(np.int64)


def frame_messages(frame_bits, message_flits: int, flit_bits: int, header: str = "overhead"):
    """How frames are cut into messages (§IV-B.1): ``(messages, last_flits)`` per frame (int64 arrays).

    The frame's bits fill ``ceil(bits / flit_bits)`` payload flits; a message carries ``M - 1`` of them
    behind its header flit (``header`` overhead) or ``M`` (payload: the header counted as data), the last
    message the rest (plus its header).

    Examples
    --------
    >>> frame_messages(np.array([133_328]), 20, 32)          # 4167 payload flits: 219 x 19 + 6
    (array([220]), array([7]))
    >>> frame_messages(np.array([133_328]), 20, 32, "payload")
    (array([209]), array([7]))
    """
    bits = np.asarray(frame_bits, dtype=np.int64)
    payload = -(-bits // int(flit_bits))
    per = message_flits - 1 if header == "overhead" else message_flits
    if per < 1:
        raise InputError("message_flits", message_flits, "at least 2 with a header flit of overhead")
    messages = -(-payload // per)
    rest = payload - (messages - 1) * per
    return messages, rest + (1 if header == "overhead" else 0)


@dataclass(frozen=True, eq=False)
class FrameSchedule:
    """The regulator per frame, all int64 but ``spacing``: frame ``f`` starts at ``start[f]`` (cycles), has
    ``messages[f]`` messages, all ``message_flits`` long but the last (``last_flits[f]``); message ``k``
    leaves the source at ``start[f] + floor(k * spacing[f])`` with ``spacing = span_cycles / messages``."""

    start: np.ndarray
    messages: np.ndarray
    last_flits: np.ndarray
    spacing: np.ndarray
    message_flits: int


def frame_schedule(frame_bits, router, traffic, phase: float = 0.0) -> FrameSchedule:
    """The regulator's frames: frame ``f`` starts at ``phase + f * frame_period`` seconds and its messages
    go ``regulator_span / messages`` apart (§IV-B.1: 33 ms / messages; 200 messages -> 165 us).

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> f = frame_schedule(np.array([133_328, 133_328]), WormholeRouter(), WormholeTraffic(0.5))
    >>> f.start.tolist(), f.messages.tolist(), f.spacing.tolist()      # 1/30 s = 416,666.7 cycles of 80 ns
    ([0, 416666], [220, 220], [1875.0, 1875.0])
    """
    st = traffic.streams
    cps = router.cycles_per_second
    messages, last = frame_messages(frame_bits, traffic.message_flits, router.flit_bits, traffic.header)
    f = np.arange(len(messages))
    # floor with a hair of slack: 1/30 s at 12.5e6 cycles/s must not land one cycle early from rounding.
    start = np.floor((phase + f * st.frame_period) * cps + 1e-6).astype(np.int64)
    spacing = st.regulator_span * cps / messages
    return FrameSchedule(start, messages.astype(np.int64), last.astype(np.int64), spacing, traffic.message_flits)


@dataclass(frozen=True, eq=False)
class MessageSchedule:
    """One stream's messages in injection order: ``cycle`` (int64), ``flits`` (int64, header included),
    ``frame`` (int64), ``last`` (bool, the frame's last message: its arrival delivers the frame) and
    ``vtick`` (float64, cycles per flit: the message's spacing / its flits, the rate FGVC reserves)."""

    cycle: np.ndarray
    flits: np.ndarray
    frame: np.ndarray
    last: np.ndarray
    vtick: np.ndarray


def injection_schedule(frame_bits, router, traffic, phase: float = 0.0) -> MessageSchedule:
    """:func:`frame_schedule` expanded to one row per message (tests, small runs; a kernel should expand the
    frame rows itself, by the same arithmetic, rather than hold a second of messages).

    Vtick (§III-D) = message inter-arrival time / message size in flits, the message's own size (a short
    last message reserves less).

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> s = injection_schedule(np.array([8000, 8000]), WormholeRouter(), WormholeTraffic(0.5))
    >>> s.cycle.tolist(), s.flits.tolist(), s.last.tolist()    # 250 payload flits: 13 x 19 + 3 (+ header)
    ([0, 29464, 58928, 88392, 117857, 147321, 176785, 206250, 235714, 265178, 294642, 324107, 353571, 383035, \
416666, 446130, 475594, 505058, 534523, 563987, 593451, 622916, 652380, 681844, 711308, 740773, 770237, 799701], \
[20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 4, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 4], \
[False, False, False, False, False, False, False, False, False, False, False, False, False, True, False, False, \
False, False, False, False, False, False, False, False, False, False, False, True])
    """
    fs = frame_schedule(frame_bits, router, traffic, phase)
    total = int(fs.messages.sum())
    frame = np.repeat(np.arange(len(fs.messages), dtype=np.int64), fs.messages)
    first = np.cumsum(fs.messages) - fs.messages
    k = np.arange(total, dtype=np.int64) - first[frame]
    cycle = fs.start[frame] + np.floor(k * fs.spacing[frame] + 1e-9).astype(np.int64)
    last = k == fs.messages[frame] - 1
    flits = np.where(last, fs.last_flits[frame], fs.message_flits).astype(np.int64)
    return MessageSchedule(cycle, flits, frame, last, fs.spacing[frame] / flits)


def _quantile_grid(n: int = QUADRATURE_POINTS) -> np.ndarray:
    from scipy.special import ndtri

    return ndtri((np.arange(n) + 0.5) / n)


def mean_frame_flits(streams: VideoStreams, traffic, flit_bits: int, sequence: int | None = None) -> tuple:
    """``(messages, flits)``: a stream's mean messages and flits (headers included) per frame, by quadrature
    over its frame-size law (midpoint quantiles, :data:`QUADRATURE_POINTS`); mpeg2 averages over the GOP.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeTraffic
    >>> mean_frame_flits(VideoStreams("cbr"), WormholeTraffic(0.5), 32)
    (220.0, 4387.0)
    >>> [round(x, 2) for x in mean_frame_flits(VideoStreams("vbr"), WormholeTraffic(0.5), 32)]
    [219.78, 4386.66]
    """
    z = _quantile_grid()
    if streams.kind == "cbr":
        bits = np.array([8 * streams.frame_bytes])
    elif streams.kind == "vbr":
        bits = 8 * np.maximum(np.rint(streams.frame_bytes + streams.frame_sd_bytes * z), 1)
    else:
        seq = streams.sequences[0] if sequence is None else sequence
        mu, sigma = _lognormal_params(streams.frame_cv)
        factor = np.exp(mu + sigma * z)
        bits = np.concatenate([np.maximum(np.rint(1e3 * TABLE_III[seq][_TYPE[c]] * factor), 1) for c in streams.gop])
    messages, last = frame_messages(bits.astype(np.int64), traffic.message_flits, flit_bits, traffic.header)
    flits = (messages - 1) * traffic.message_flits + last
    return float(messages.mean()), float(flits.mean())


def regulator_interval_sd(streams: VideoStreams, traffic, flit_bits: int, sequence: int | None = None) -> float:
    """The frame delivery interval's s.d. with every message delayed alike (seconds): the floor of sigma_d.

    A frame is delivered by its last message, which the regulator injects ``span - span / n`` after the
    frame starts (n its messages), so with equal delays successive deliveries are ``T + span (1/n_f -
    1/n_(f+1))`` apart: s.d. ``span sqrt(2 Var(1/n))`` for independent frame sizes (vbr; cbr: 0). mpeg2
    frames are not independent (the GOP), so this is computed over the GOP's successive pairs there.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeTraffic
    >>> round(regulator_interval_sd(VideoStreams("vbr"), WormholeTraffic(0.5), 32) * 1e3, 4)     # ms
    0.0521
    >>> regulator_interval_sd(VideoStreams("cbr"), WormholeTraffic(0.5), 32)
    0.0
    """
    z = _quantile_grid()
    span = streams.regulator_span
    if streams.kind == "cbr":
        return 0.0
    if streams.kind == "vbr":
        bits = 8 * np.maximum(np.rint(streams.frame_bytes + streams.frame_sd_bytes * z), 1)
        n, _ = frame_messages(bits.astype(np.int64), traffic.message_flits, flit_bits, traffic.header)
        return float(span * math.sqrt(2.0 * np.var(1.0 / n)))
    seq = streams.sequences[0] if sequence is None else sequence
    mu, sigma = _lognormal_params(streams.frame_cv)
    factor = np.exp(mu + sigma * z)
    inv = []
    for c in streams.gop:
        n, _ = frame_messages(np.maximum(np.rint(1e3 * TABLE_III[seq][_TYPE[c]] * factor), 1).astype(np.int64),
                              traffic.message_flits, flit_bits, traffic.header)
        inv.append((float(np.mean(1.0 / n)), float(np.var(1.0 / n))))
    g = len(inv)
    # d - T = span (1/n_f - 1/n_(f+1)): over the GOP's g successive pairs, its mean square minus its mean squared.
    ms = sum(inv[i][1] + inv[(i + 1) % g][1] + (inv[i][0] - inv[(i + 1) % g][0]) ** 2 for i in range(g)) / g
    return float(span * math.sqrt(ms))


def wire_rate(streams: VideoStreams, traffic, router, sequence: int | None = None) -> float:
    """A stream's mean rate on the wire, flits per cycle (a share of the link): mean flits per frame /
    frame period, headers included. A 16,666-byte CBR stream at 400 Mbit/s with 20-flit messages:
    4387 flits every 1/30 s, 0.010529 of the link (nominally 0.0099996: the header adds 5.3 %).

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> round(wire_rate(VideoStreams("cbr"), WormholeTraffic(0.5), WormholeRouter()), 6)
    0.010529
    """
    _, flits = mean_frame_flits(streams, traffic, router.flit_bits, sequence)
    return flits / streams.frame_period / router.cycles_per_second


def streams_per_input(router, traffic, stream_rate: float | None = None) -> int:
    """Real-time streams one input carries: the most whose rates fit the real-time load (admission only at
    the input link, §IV-B.3), ``floor(realtime_load / rate)`` with the rate a share of the link (nominal:
    ``nominal_rate / link_rate``; wire: :func:`wire_rate`). 400 Mbit/s, 80:20 at 0.96: 76 streams.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> streams_per_input(WormholeRouter(), WormholeTraffic(0.96, (80, 20)))
    76
    >>> streams_per_input(WormholeRouter(), WormholeTraffic(0.96, (80, 20), load_basis="wire"))
    72
    """
    if stream_rate is None:
        st = traffic.streams
        if traffic.load_basis == "nominal":
            stream_rate = st.nominal_rate / router.link_rate
        else:
            rates = [wire_rate(st, traffic, router, s) for s in (st.sequences if st.kind == "mpeg2" else (None,))]
            stream_rate = sum(rates) / len(rates)
    return int(math.floor(traffic.realtime_load / stream_rate + 1e-9))


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
    (:func:`streams_per_input`; mpeg2: sequences drawn uniformly from ``sequences`` and added while their
    rates fit, stopping at the first that does not), spread evenly over the input's real-time VCs (stream
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
    (608, 13, 608, 12)
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
    for v in range(nodes):
        if st.kind != "mpeg2":
            n = streams_per_input(router, traffic)
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
    """PCS connections (§III-F, §IV-B.1): every source asks for as many streams as the real-time load admits
    (:func:`~switchq.solvers.wormhole_traffic.streams_per_input`), one input VC each; a probe names a uniform
    destination and a uniform real-time VC there and is dropped when a connection already holds that output VC
    (no adaptive routing, no retry of the same probe). Sources probe in a random order until each has its
    streams (or 100 x VCs probes failed). Returns ``(placement, attempted, established, dropped)``.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> r = WormholeRouter(vcs=24, link_rate=100e6, switching="pcs")
    >>> p, att, est, drop = pcs_placement(8, r, WormholeTraffic(0.91, (100, 0)), np.random.default_rng(1))
    >>> est, att == est + drop, p.streams
    (176, True, 176)
    """
    m_rt = traffic.realtime_vcs(router.vcs)
    want = streams_per_input(router, traffic) if traffic.realtime_load > 0 else 0
    want = min(want, m_rt)
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
        dvc = int(rng.integers(m_rt))
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


@dataclass(frozen=True, eq=False)
class StreamFrames:
    """Every stream's frames in one CSR table: stream ``i`` owns rows ``offset[i]:offset[i + 1]`` (``offset``
    has streams + 1 entries), each row a frame with ``bits``, ``start`` cycle, ``messages``, ``last_flits``
    and ``spacing`` (float64 cycles between its messages) as in :class:`FrameSchedule`. A kernel walks a
    stream's rows with a pointer and emits message ``k`` of a frame at ``start + floor(k * spacing)``."""

    offset: np.ndarray
    bits: np.ndarray
    start: np.ndarray
    messages: np.ndarray
    last_flits: np.ndarray
    spacing: np.ndarray
    message_flits: int

    @property
    def frames(self) -> int:
        return len(self.start)


def stream_frames(placement: StreamPlacement, router, traffic, cycles: int, rng: np.random.Generator) -> StreamFrames:
    """Frames of every stream of ``placement`` that start before cycle ``cycles``: sizes drawn with
    :func:`frame_sizes` (mpeg2: the stream's sequence and GOP phase), scheduled with :func:`frame_schedule`
    from the stream's phase. Streams are drawn in order, so one seed gives one table.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> r, t = WormholeRouter(), WormholeTraffic(0.5, (50, 50), streams=VideoStreams("cbr"))
    >>> rng = np.random.default_rng(7)
    >>> p = place_streams(8, r, t, rng)
    >>> f = stream_frames(p, r, t, int(r.cycles_per_second), rng)          # one second
    >>> p.streams, f.frames, int(f.messages.sum()), bool(np.all(f.start < r.cycles_per_second))
    (200, 6000, 1320000, True)
    """
    st = traffic.streams
    cps = router.cycles_per_second
    period = st.frame_period * cps
    parts, counts = [], []
    for i in range(placement.streams):
        first = placement.phase[i] * cps
        n = max(0, int(math.ceil((cycles - first) / period - 1e-9)))
        bits = frame_sizes(st, n, rng, int(placement.sequence[i]) or None, int(placement.gop_phase[i]))
        fs = frame_schedule(bits, router, traffic, float(placement.phase[i]))
        keep = fs.start < cycles
        parts.append((bits[keep], fs.start[keep], fs.messages[keep], fs.last_flits[keep], fs.spacing[keep]))
        counts.append(int(keep.sum()))
    offset = np.zeros(placement.streams + 1, dtype=np.int64)
    offset[1:] = np.cumsum(counts)
    if parts:
        cols = [np.concatenate([p[j] for p in parts]) for j in range(5)]
    else:
        cols = [np.zeros(0, dtype=np.int64)] * 4 + [np.zeros(0)]
    return StreamFrames(offset, cols[0].astype(np.int64), cols[1].astype(np.int64), cols[2].astype(np.int64),
                        cols[3].astype(np.int64), cols[4].astype(np.float64), traffic.message_flits)
