"""A video stream's frames and what they cost on the wire (paper 004 §IV-B.1, Table III).

Plain NumPy, no simulation: the frame-size laws of MediaWorm's streams
(:class:`switchq.models.wormhole_streams.VideoStreams`) and how a frame is cut into
messages of M flits, drawn or integrated.

- :func:`frame_sizes`: a stream's frame sizes in bits (cbr, vbr, mpeg2
  surrogate), drawn with the ``numpy.random.Generator`` passed in.
- :func:`frame_messages`: how a frame is cut into messages of M flits (the
  last one shorter), with or without a header flit of overhead (§IV-B.1).
- :func:`mean_frame_flits`, :func:`wire_rate`: a stream's mean flits per
  frame and rate on the wire, headers included (quadrature over the frame
  size distribution, not sampling).
- :func:`regulator_interval_sd`: the s.d. of the frame interval with no
  jitter at all (the regulator's last-message offset varies with the frame).
- :func:`mpeg2_mean_frame_bits`, :func:`mpeg2_bandwidth_gap`: the MPEG-2
  surrogate's mean frame and bandwidth against Table III's column.

Sizes are bits, rates flits per cycle (a share of the link).

The traffic's description, so it is here: the solvers (:mod:`switchq.solvers.wormhole`) and the
flit kernel (:mod:`switchq.validate.arch.flit`) both read it, neither from the other.

Examples
--------
>>> frame_messages(np.array([133_328, 8_000]), 20, 32)[0].tolist()      # messages per frame
[220, 14]
"""

from __future__ import annotations

import math

import numpy as np

from switchq.errors import InputError
from .wormhole import GOP_DEFAULT, STREAM_KINDS, TABLE_III, VideoStreams

__all__ = ["frame_sizes", "frame_messages", "mean_frame_flits", "wire_rate", "regulator_interval_sd",
           "mpeg2_mean_frame_bits", "mpeg2_bandwidth_gap", "QUADRATURE_POINTS"]

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
