"""The source regulator: when each video message leaves its node (paper 004 §IV-B.1, §III-D's Vtick).

Plain NumPy, no simulation: a stream's frames start a frame period apart and
the regulator spreads each frame's messages evenly over ``regulator_span``;
these turn that into what a flit-level kernel injects.

- :func:`frame_schedule` / :func:`injection_schedule`: per frame (start
  cycle, messages, spacing; what a kernel should hold) or expanded per
  message (cycle, flits, frame, last, Vtick).
- :func:`stream_frames`: every placed stream's frames for a run, in one
  CSR table (the kernel's real-time input: O(frames), not O(messages)).

Times are cycles (one flit per link per cycle, :attr:`WormholeRouter.cycle_seconds`).

The traffic's description, so it is here: the solvers (:mod:`switchq.solvers.wormhole`) and the
flit kernel (:mod:`switchq.validate.arch.flit`) both read it, neither from the other.

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

from .wormhole_frames import frame_messages, frame_sizes
from .wormhole_placement import StreamPlacement

__all__ = ["frame_schedule", "injection_schedule", "stream_frames", "FrameSchedule", "MessageSchedule",
           "StreamFrames"]


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
    >>> from switchq.models.wormhole import VideoStreams, WormholeRouter, WormholeTraffic
    >>> from switchq.models.wormhole_placement import place_streams
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
