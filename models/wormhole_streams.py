"""What MediaWorm's nodes offer (paper 004 §IV-B, Table III): video streams and best-effort messages.

:mod:`switchq.models.wormhole` describes the router and the network; this module the traffic they carry:

:class:`VideoStreams`
    the real-time streams of §IV-B.1: ``cbr`` (16,666-byte frames), ``vbr``
    (normal frame sizes, mean 16,666 B, s.d. 3,333 B) or ``mpeg2`` (a GOP
    surrogate of Table III's traces, see below), 30 frames/s, each frame's
    messages spread by the source's regulator over ``regulator_span``.
:class:`WormholeTraffic`
    the load (a share of the link bandwidth), the real-time : best-effort
    mix x:y (VCs split in the same proportion), message size M flits,
    best-effort Poisson messages, destinations.
The MPEG-2 surrogate (the traces of [16] are not available): each stream
plays one of Table III's seven sequences, chosen uniformly, through a GOP
pattern (default ``IBBPBBPBBPBB``, N = 12, M = 3, the MPEG-2 norm at 30
frames/s) started at a random phase; a frame of type I, P or B has the
table's mean size for that type times an independent lognormal factor of
mean 1 and coefficient of variation ``frame_cv`` (default 0.2, the
synthetic VBR's 3,333 / 16,666). Its mean bandwidth is 30 x the GOP's mean
frame, within 1.21 % of the table's column for every sequence
(:func:`switchq.models.wormhole_frames.mpeg2_bandwidth_gap`).

Readings the paper leaves open are options, each defaulting to the reading
that follows its words most closely:

- ``header``: a message's header flit carries no video (``overhead``: M - 1
  payload flits per message, §V-E "1 header flit in a message size of 20
  flits consumes 5 % of the stream bandwidth"), or all M flits do
  (``payload``).
- ``load_basis``: streams are counted from their nominal rate (``nominal``:
  4 Mbit/s per synthetic stream, which gives §IV-B.3's "at most 6
  connections per VC" at 400 Mbit/s and 16 VCs) or from their rate on the
  wire, headers included (``wire``).
- ``frame_period``: 1/30 s (§IV-B.1 "30 frames/sec") while the regulator
  spreads a frame's messages over ``regulator_span`` = 33 ms (its example:
  200 messages, 165 us apart); set ``frame_period=0.033`` for frames every
  33 ms.
- ``regulator``: a frame's messages spread evenly over ``regulator_span``
  (``spread``, §IV-B.1 "an input regulator injects messages of a frame at
  a regular interval of (33msec/number of messages)") or all handed to the
  NIC when the frame starts (``none``: §III-D's Table II comparison comes
  before "In order to avoid traffic burstiness, we regulate the traffic
  injection as described in Section IV"). Either way a message's Vtick is
  the regulator's spacing over its flits: the bandwidth the stream reserves.
- ``destinations``: uniform over ``all`` nodes, the sender's own included
  (§IV-B.1 "a uniform distribution of all nodes"), or over the ``others``.
- ``placement``: a stream's destination and destination VC drawn uniformly
  (``uniform``: a node may receive more video than its link carries, which
  only the input link's admission does not prevent), or uniformly among the
  (node, VC) pairs holding fewer streams than the busiest input VC carries
  (``capped``: §IV-B.3's "at most 6 connections per VC ... at most 6 x 8 = 48
  outstanding/incoming streams at each node", the limit read at the
  destination too).

No drawing here: :mod:`switchq.models.wormhole_placement` and :mod:`switchq.models.wormhole_frames` draw the
streams and frames a kernel consumes.

>>> t = WormholeTraffic(0.96, mix=(80, 20))
>>> t.realtime_share, t.realtime_vcs(16), t.best_effort_vcs(16)
(0.8, 13, 3)
>>> WormholeTraffic(0.8, mix="50:50").mix
(50.0, 50.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import _check

__all__ = ["VideoStreams", "WormholeTraffic", "STREAM_KINDS", "REGULATORS", "HEADERS", "LOAD_BASES", "DESTINATIONS",
           "PLACEMENTS", "TABLE_III", "GOP_DEFAULT", "FRAME_BYTES", "FRAME_SD_BYTES", "FRAME_RATE", "REGULATOR_SPAN"]

STREAM_KINDS = ("cbr", "vbr", "mpeg2")
REGULATORS = ("spread", "none")
HEADERS = ("overhead", "payload")
LOAD_BASES = ("nominal", "wire")
DESTINATIONS = ("all", "others")
PLACEMENTS = ("uniform", "capped")

# §IV-B.1: synthetic frames (bytes), 30 frames/s, the regulator's 33 ms.
FRAME_BYTES = 16_666
FRAME_SD_BYTES = 3_333
FRAME_RATE = 30.0
REGULATOR_SPAN = 0.033
# Table III: sequence -> (average bandwidth kbit/s, mean I, P, B frame kbit). kbit = 1000 bits (the
# columns agree: 30 frames/s x the GOP's mean frame in kbit gives the kbit/s column within 1.21 %).
TABLE_III = {
    1: (7138.2, 430.2, 295.6, 194.2),
    2: (15231.4, 839.4, 680.6, 401.0),
    3: (13526.4, 534.7, 569.4, 387.8),
    4: (8356.5, 393.3, 340.3, 241.4),
    5: (6124.2, 350.6, 242.9, 172.9),
    6: (18406.0, 974.7, 721.9, 529.6),
    7: (13497.9, 637.6, 536.0, 394.3),
}
# MPEG-2's usual group of pictures at 30 frames/s: N = 12 frames, an anchor every M = 3.
GOP_DEFAULT = "IBBPBBPBBPBB"


@dataclass(frozen=True)
class VideoStreams:
    """Real-time video streams (§IV-B.1): frame sizes, frame rate, the source regulator.

    Parameters
    ----------
    kind : str
        ``cbr`` (every frame ``frame_bytes``), ``vbr`` (normal, mean ``frame_bytes``, s.d. ``frame_sd_bytes``,
        floored at one byte) or ``mpeg2`` (Table III's GOP surrogate; see the module docstring).
    frame_bytes, frame_sd_bytes : int
        16,666 and 3,333 bytes.
    frame_period : float
        Seconds between a stream's frames (1/30).
    regulator_span : float
        Seconds over which the regulator spreads a frame's messages, ``regulator_span / messages`` apart
        (33 ms); at most ``frame_period``. The spacing is also the rate a message's Vtick reserves.
    regulator : str
        ``spread`` (messages ``regulator_span / messages`` apart) or ``none`` (all of a frame's messages join
        the NIC as the frame starts; a burst, Vtick unchanged).
    gop : str
        ``mpeg2``: the group of pictures, letters I, P, B, starting with I.
    frame_cv : float
        ``mpeg2``: coefficient of variation of a frame's size around its type's Table III mean.
    sequences : tuple of int
        ``mpeg2``: the Table III sequences a stream plays, one picked uniformly per stream.

    Examples
    --------
    >>> VideoStreams().nominal_rate                    # 16,666 B x 8 x 30 /s, bit/s
    3999840.0
    >>> VideoStreams("mpeg2", sequences=(2,)).nominal_rate
    15231400.0
    >>> VideoStreams("mpeg2", gop="BBP")
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: gop: got 'BBP'; allowed: letters I, P, B starting with I, at most 64
    """

    kind: str = "vbr"
    frame_bytes: int = FRAME_BYTES
    frame_sd_bytes: int = FRAME_SD_BYTES
    frame_period: float = 1.0 / FRAME_RATE
    regulator_span: float = REGULATOR_SPAN
    regulator: str = "spread"
    gop: str = GOP_DEFAULT
    frame_cv: float = 0.2
    sequences: tuple = tuple(TABLE_III)

    def __post_init__(self):
        _check.choice("kind", self.kind, STREAM_KINDS)
        _check.choice("regulator", self.regulator, REGULATORS)
        period = _check.real("frame_period", self.frame_period, 0.0, 10.0, low_open=True)
        _check.assign(self, frame_bytes=_check.integer("frame_bytes", self.frame_bytes, 1, 1 << 30),
                      frame_sd_bytes=_check.integer("frame_sd_bytes", self.frame_sd_bytes, 0, 1 << 30),
                      frame_period=period,
                      regulator_span=_check.real("regulator_span", self.regulator_span, 0.0, period, low_open=True),
                      frame_cv=_check.real("frame_cv", self.frame_cv, 0.0, 2.0))
        g = self.gop
        if not isinstance(g, str) or not 1 <= len(g) <= 64 or g[0] != "I" or set(g) - set("IPB"):
            raise _check.InputError("gop", g, "letters I, P, B starting with I, at most 64")
        seqs = tuple(self.sequences) if isinstance(self.sequences, (tuple, list)) else (self.sequences,)
        if not seqs or any(s not in TABLE_III for s in seqs):
            raise _check.InputError("sequences", self.sequences, "Table III sequence numbers among 1..7")
        _check.assign(self, sequences=seqs)

    @property
    def frame_rate(self) -> float:
        """Frames per second, 1 / ``frame_period``."""
        return 1.0 / self.frame_period

    @property
    def nominal_rate(self) -> float:
        """The stream's declared mean rate, bit/s, the one admission counts (``load_basis`` nominal):
        ``frame_bytes`` x 8 / ``frame_period`` for cbr and vbr, Table III's average bandwidth column averaged
        over ``sequences`` for mpeg2 (the bandwidth requirement the paper's messages carry)."""
        if self.kind == "mpeg2":
            return 1e3 * sum(TABLE_III[s][0] for s in self.sequences) / len(self.sequences)
        return self.frame_bytes * 8.0 / self.frame_period

    def describe(self) -> dict:
        out = {"traffic": self.kind, "frame_bytes": self.frame_bytes, "frame_period": self.frame_period,
               "regulator_span": self.regulator_span}
        if self.regulator != "spread":
            out["regulator"] = self.regulator
        if self.kind == "vbr":
            out["frame_sd_bytes"] = self.frame_sd_bytes
        if self.kind == "mpeg2":
            out.update(gop=self.gop, frame_cv=self.frame_cv, sequences=list(self.sequences))
        return out


def _mix(value) -> tuple:
    """x:y as a pair of non-negative floats, not both zero (a tuple, a list or the text ``"x:y"``)."""
    allowed = "x,y, two numbers >= 0 not both 0 (e.g. 80,20)"
    pair = value
    if isinstance(value, str):
        pair = value.split(":")
    try:
        x, y = (float(v) for v in pair)
    except (TypeError, ValueError):
        raise _check.InputError("mix", value, allowed) from None
    if not (x >= 0 and y >= 0 and x + y > 0) or x + y == float("inf"):
        raise _check.InputError("mix", value, allowed)
    return x, y


@dataclass(frozen=True)
class WormholeTraffic:
    """What every node offers (§IV-B): video streams and best-effort messages, as a load and a mix.

    Parameters
    ----------
    load : float
        Offered load at each input as a share of the link bandwidth, in [0, 1].
    mix : tuple or str
        x:y; x / (x + y) of the load is real-time (video streams), y / (x + y) best effort. The VCs of each
        physical channel are split in the same proportion (rounded to the nearest, each class with a
        positive share keeping one at least).
    message_flits : int
        M, flits per message, header included (20 or 40); a frame's last message may be shorter.
    streams : VideoStreams
        The real-time streams.
    header, load_basis, destinations, placement : str
        Readings (module docstring).
    seconds : float
        Simulated time measured per replication (the frames of a stream come every 33 ms: a second gives 30).
    warmup_seconds : float or None
        Simulated time discarded first; None: ``seconds`` / 10, at least one frame period.

    Examples
    --------
    >>> t = WormholeTraffic(0.8, mix=(50, 50))
    >>> t.realtime_load, t.best_effort_load, t.payload_flits
    (0.4, 0.4, 19)
    >>> round(t.best_effort_messages_per_cycle, 6)      # 0.4 / 20
    0.02
    >>> WormholeTraffic(0.8, mix=(0, 0))
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: mix: got (0, 0); allowed: x,y, two numbers >= 0 not both 0 (e.g. 80,20)
    """

    load: float
    mix: tuple = (80.0, 20.0)
    message_flits: int = 20
    streams: VideoStreams = field(default_factory=VideoStreams)
    header: str = "overhead"
    load_basis: str = "nominal"
    destinations: str = "all"
    seconds: float = 1.0
    warmup_seconds: float | None = None
    placement: str = "uniform"

    def __post_init__(self):
        m = _check.integer("message_flits", self.message_flits, 2, 1 << 16)
        _check.assign(self, seconds=_check.real("seconds", self.seconds, 1e-4, 1e4))
        if self.warmup_seconds is not None:
            _check.assign(self, warmup_seconds=_check.real("warmup_seconds", self.warmup_seconds, 0.0, 1e4))
        _check.assign(self, load=_check.real("load", self.load, 0.0, 1.0), mix=_mix(self.mix), message_flits=m)
        if not isinstance(self.streams, VideoStreams):
            raise _check.InputError("streams", self.streams, "a VideoStreams")
        _check.choice("header", self.header, HEADERS)
        _check.choice("load_basis", self.load_basis, LOAD_BASES)
        _check.choice("destinations", self.destinations, DESTINATIONS)
        _check.choice("placement", self.placement, PLACEMENTS)

    @property
    def realtime_share(self) -> float:
        """x / (x + y)."""
        x, y = self.mix
        return x / (x + y)

    @property
    def realtime_load(self) -> float:
        """The real-time part of the load, a share of the link bandwidth."""
        return self.load * self.realtime_share

    @property
    def best_effort_load(self) -> float:
        """The best-effort part, flits per cycle per input (a share of the link bandwidth)."""
        return self.load - self.realtime_load

    @property
    def payload_flits(self) -> int:
        """Video flits a full message carries: M - 1 (``header`` overhead) or M (payload)."""
        return self.message_flits - 1 if self.header == "overhead" else self.message_flits

    @property
    def best_effort_messages_per_cycle(self) -> float:
        """Poisson rate of best-effort messages per input per cycle: best-effort load / M."""
        return self.best_effort_load / self.message_flits

    def realtime_vcs(self, vcs: int) -> int:
        """VCs of a physical channel reserved for real-time traffic: ``vcs`` x x/(x+y) rounded half up,
        at least 1 if x > 0 and at most ``vcs - 1`` if y > 0 (§IV-B.3). 16 VCs: 80:20 -> 13, 50:50 -> 8."""
        x, y = self.mix
        if x == 0:
            return 0
        if y == 0:
            return vcs
        if vcs < 2:
            raise _check.InputError("vcs", vcs, f"at least 2 to split between real-time and best effort (mix {x:g}:{y:g})")
        return min(vcs - 1, max(1, int(vcs * self.realtime_share + 0.5)))

    @property
    def warmup(self) -> float:
        """Seconds discarded before measuring: ``warmup_seconds``, or ``seconds`` / 10, at least one frame period."""
        if self.warmup_seconds is not None:
            return self.warmup_seconds
        return max(self.seconds / 10, self.streams.frame_period)

    def best_effort_vcs(self, vcs: int) -> int:
        """The rest of the VCs."""
        return vcs - self.realtime_vcs(vcs)

    def describe(self) -> dict:
        out = {"load": self.load, "mix": f"{self.mix[0]:g}:{self.mix[1]:g}", "message_flits": self.message_flits,
               "header": self.header, "load_basis": self.load_basis, "destinations": self.destinations,
               "placement": self.placement, "seconds": self.seconds, "warmup_seconds": self.warmup}
        out.update(self.streams.describe())
        return out
