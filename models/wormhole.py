"""Wormhole virtual-channel routers with rate-based scheduling: MediaWorm (paper 004 §III-§IV, Table III-IV).

Paper 004 (*MediaWorm: a QoS capable router architecture for clusters*) asks whether a plain
pipelined wormhole router with virtual channels can carry video streams
jitter-free beside best-effort traffic once its FIFO scheduler is replaced
by a rate-based one. This module describes, and validates, what is asked:

:class:`WormholeRouter`
    an n x n router, m VCs per physical channel, flits of ``flit_bits`` on
    links of ``link_rate`` bit/s (one flit per cycle), the 5-stage pipeline
    of Fig. 1 (headers 5 stages, body and tail flits 3: they bypass routing
    and arbitration), a ``multiplexed`` (n x n) or ``full`` (nm x nm)
    crossbar (§III-C), the scheduler ``fgvc`` / ``fgfq`` / ``fifo``
    (§III-D, Table I) and ``wormhole`` or ``pcs`` switching (§III-F).
:class:`VideoStreams`
    the real-time streams of §IV-B.1: ``cbr`` (16,666-byte frames), ``vbr``
    (normal frame sizes, mean 16,666 B, s.d. 3,333 B) or ``mpeg2`` (a GOP
    surrogate of Table III's traces, see below), 30 frames/s, each frame's
    messages spread by the source's regulator over ``regulator_span``.
:class:`WormholeTraffic`
    the load (a share of the link bandwidth), the real-time : best-effort
    mix x:y (VCs split in the same proportion), message size M flits,
    best-effort Poisson messages, destinations.
:class:`WormholeNetwork`
    one router with a node on every port (``switch``) or Fig. 4's 2 x 2
    ``fatmesh`` of such routers, neighbours joined by two links.

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
- ``destinations``: uniform over ``all`` nodes, the sender's own included
  (§IV-B.1 "a uniform distribution of all nodes"), or over the ``others``.
- ``placement``: a stream's destination and destination VC drawn uniformly
  (``uniform``: a node may receive more video than its link carries, which
  only the input link's admission does not prevent), or uniformly among the
  (node, VC) pairs holding fewer streams than the busiest input VC carries
  (``capped``: §IV-B.3's "at most 6 connections per VC ... at most 6 x 8 = 48
  outstanding/incoming streams at each node", the limit read at the
  destination too).
- Table IV's "32 / 128 bits" and "400 Mbps / 1.6 Gbps" are read as two
  pairings, 32-bit flits at 400 Mbit/s and 128-bit flits at 1.6 Gbit/s: both
  an 80 ns flit cycle (:data:`switchq.solvers.wormhole.TABLE_IV_TIMING`).
  §V-F's 100 Mbit/s PCS router states no flit size; 32 bits (320 ns) is read.

No solving and no simulation here: validated descriptions only
(:mod:`switchq.solvers.wormhole` answers; the traffic a kernel consumes is drawn by
:mod:`switchq.models.wormhole_placement` and :mod:`switchq.models.wormhole_frames`).

Examples
--------
>>> r = WormholeRouter()
>>> r.n_ports, r.vcs, r.crossbar_ports, r.cycle_seconds
(8, 16, 8, 8e-08)
>>> t = WormholeTraffic(0.96, mix=(80, 20))
>>> t.realtime_share, t.realtime_vcs(16), t.best_effort_vcs(16)
(0.8, 13, 3)
>>> WormholeTraffic(0.8, mix="50:50").mix
(50.0, 50.0)
>>> WormholeRouter(vcs=0)
Traceback (most recent call last):
...
switchq.errors.InputError: vcs: got 0; allowed: an integer in [1, 256]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from . import _check

__all__ = ["WormholeRouter", "VideoStreams", "WormholeTraffic", "WormholeNetwork", "SCHEDULERS", "CROSSBARS",
           "SWITCHING", "STREAM_KINDS", "HEADERS", "LOAD_BASES", "DESTINATIONS", "PLACEMENTS", "TOPOLOGIES",
           "VCLOCK_STATES", "CROSSBAR_OUTPUTS", "TABLE_III",
           "GOP_DEFAULT", "FRAME_BYTES", "FRAME_SD_BYTES", "FRAME_RATE", "REGULATOR_SPAN", "PCS_VCS"]

SCHEDULERS = ("fgvc", "fgfq", "fifo")
CROSSBARS = ("multiplexed", "full")
SWITCHING = ("wormhole", "pcs")
STREAM_KINDS = ("cbr", "vbr", "mpeg2")
HEADERS = ("overhead", "payload")
LOAD_BASES = ("nominal", "wire")
DESTINATIONS = ("all", "others")
PLACEMENTS = ("uniform", "capped")
TOPOLOGIES = ("switch", "fatmesh")
VCLOCK_STATES = ("message", "vc")
CROSSBAR_OUTPUTS = ("stamp", "fifo")
BEST_EFFORT_VCS = ("drawn", "free")
BEST_EFFORT_STAMPS = ("vclock", "largest")

# §IV-B.1: synthetic frames (bytes), 30 frames/s, the regulator's 33 ms.
FRAME_BYTES = 16_666
FRAME_SD_BYTES = 3_333
FRAME_RATE = 30.0
REGULATOR_SPAN = 0.033
# Table IV: 24 VCs per physical channel for the PCS router, one stream each.
PCS_VCS = 24
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
class WormholeRouter:
    """An n x n pipelined wormhole router with m VCs per physical channel (§III-A-C, Fig. 1-3, Table IV).

    Parameters
    ----------
    n_ports : int
        n, physical channels in and out (8 in the paper).
    vcs : int
        m, virtual channels per physical channel (4, 8, 16; 24 for PCS).
    flit_bits : int
        Flit width in bits (32 or 128, Table IV).
    link_rate : float
        Physical channel bandwidth, bit/s (100e6, 400e6, 1.6e9). One flit crosses a link per cycle, so the
        cycle is ``flit_bits / link_rate`` seconds.
    crossbar : str
        ``multiplexed``: n x n, contention at the crossbar input multiplexer (A), the crossbar output (B) and
        the VC multiplexer (C), rate-based scheduling at A; ``full``: nm x nm, contention at B and C,
        scheduling at C (§III-D).
    scheduler : str
        ``fgvc`` (Fine-Grained VirtualClock), ``fgfq`` (Fine-Grained Fair Queueing) or ``fifo`` (the
        traditional router, TR).
    switching : str
        ``wormhole`` (MediaWorm) or ``pcs`` (pipelined circuit switching: one stream per VC, a probe
        reserves the path, dropped when it cannot).
    header_stages, body_stages : int
        Pipeline stages (one cycle each) a header flit and a body/tail flit pass: 5 and 3 (Fig. 1).
    link_cycles : int
        Cycles a flit spends on a link (1).
    buffer_messages : int
        Depth of every input and output VC buffer in messages (1: "one message long", §IV-A).
    vclock_state : str
        Where FGVC's auxVC lives: with the ``message`` (set from the header's arrival, dropped with the tail:
        §III-D "its Vtick information in the router is discarded", the default) or with the ``vc``, kept across
        the messages that hold it in turn (Table I's "state variable associated with each channel i").
    best_effort_vtick : float or None
        Vtick of best-effort flits, cycles per flit; None: larger than any real-time stamp (strict priority,
        §III-D "the largest possible value").
    crossbar_iterations : int
        Multiplexed crossbar: rounds of its allocator per cycle (each free input offers its smallest-stamp
        flit for a free output, each output takes its smallest offer); 0: until no pair is added (a maximal
        matching), 1: a single round (an input that loses at B sends nothing that cycle). The paper does not
        say; one round caps a uniformly loaded 8 x 8 router near 0.6 (1 - 1/e, like one-iteration PIM), which
        cannot give its jitter-free 0.96.
    crossbar_output : str
        Multiplexed crossbar: how a crossbar output (B) picks among the inputs offering it a flit. ``stamp`` (the
        default), the smallest stamp: §III-D places the scheduler at the input multiplexer (A), "which means
        that, at any given cycle, if multiple flits from different VCs are competing for the same output port
        of the crossbar, the one with the smallest auxVC will be chosen for transmission". ``fifo``, the flit
        that has waited longest: a reading of §III-D's "we rule out contentions at (B)" as B arbitrating by
        arrival, no rate-based choice there.
    best_effort_vcs : str
        How a best-effort message gets its VCs. §IV-B.2: "the input and output VC for a message are picked
        from a uniform distribution of the available VCs for this traffic class". ``free`` (the default):
        "available" as *free at the time*: the NIC keeps one best-effort queue whose head takes a uniformly drawn
        free best-effort VC of the input link, and at each router output the header takes a uniformly drawn free
        best-effort VC (the usual VC allocator). ``drawn``: "available" as *allotted to the class*: both drawn
        when the message is made, and it waits for exactly those (its NIC queues per input VC; at the router
        output it waits for its VC while another message holds it, though others may be free). With
        ``best_effort_stamp`` the default pair reproduces Table V up to load 0.7 (``switchq report mediaworm``).
    best_effort_stamp : str
        A best-effort flit's stamp under FGVC / FGFQ. §III-D: "for best-effort traffic, the Vtick is assigned the
        largest possible value". ``largest`` (the default): the stamp itself is the largest value (a saturated
        register): every best-effort flit ties, broken by arrival, i.e. FIFO among best effort, below all video.
        ``vclock``: VirtualClock's rule with that Vtick, auxVC <- max(AT, auxVC) + Vtick, so a message's stamps
        grow flit by flit and among best effort the message that has sent least goes first (processor
        sharing), which holds VCs longer and saturates an 8 x 8 router's best effort near 0.85.

    Examples
    --------
    >>> WormholeRouter(crossbar="full", vcs=4).crossbar_ports
    32
    >>> WormholeRouter(flit_bits=128, link_rate=1.6e9).cycles_per_second
    12500000.0
    >>> WormholeRouter(header_stages=2)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: header_stages: got 2; allowed: an integer in [3, 64] (at least body_stages 3)
    """

    n_ports: int = 8
    vcs: int = 16
    flit_bits: int = 32
    link_rate: float = 400e6
    crossbar: str = "multiplexed"
    scheduler: str = "fgvc"
    switching: str = "wormhole"
    header_stages: int = 5
    body_stages: int = 3
    link_cycles: int = 1
    buffer_messages: int = 1
    vclock_state: str = "message"
    best_effort_vtick: float | None = None
    crossbar_iterations: int = 0
    crossbar_output: str = "stamp"
    best_effort_vcs: str = "free"
    best_effort_stamp: str = "largest"
    architecture: ClassVar[str] = "wormhole"

    def __post_init__(self):
        body = _check.integer("body_stages", self.body_stages, 1, 64)
        _check.assign(self, n_ports=_check.integer("n_ports", self.n_ports, 2, 64),
                      vcs=_check.integer("vcs", self.vcs, 1, 256),
                      flit_bits=_check.integer("flit_bits", self.flit_bits, 1, 4096),
                      link_rate=_check.real("link_rate", self.link_rate, 1e3, 1e13),
                      link_cycles=_check.integer("link_cycles", self.link_cycles, 1, 1024),
                      buffer_messages=_check.integer("buffer_messages", self.buffer_messages, 1, 64),
                      crossbar_iterations=_check.integer("crossbar_iterations", self.crossbar_iterations, 0, 64),
                      crossbar_output=_check.choice("crossbar_output", self.crossbar_output, CROSSBAR_OUTPUTS),
                      body_stages=body)
        h = self.header_stages
        if isinstance(h, bool) or not isinstance(h, int) or not body <= h <= 64:
            raise _check.InputError("header_stages", h, f"an integer in [{body}, 64] (at least body_stages {body})")
        for name, choices in (("crossbar", CROSSBARS), ("scheduler", SCHEDULERS), ("switching", SWITCHING),
                              ("vclock_state", VCLOCK_STATES), ("best_effort_vcs", BEST_EFFORT_VCS),
                              ("best_effort_stamp", BEST_EFFORT_STAMPS)):
            _check.choice(name, getattr(self, name), choices)
        # As switchq.architectures.wormhole declares them (``applies``): the FIFO router stamps every flit by its
        # arrival (no auxVC to keep, no best-effort stamp), and a full crossbar has no allocator at its outputs
        # (contention at B and C only, scheduled at C).
        for name, default in (("vclock_state", "message"), ("best_effort_stamp", "largest")):
            _check.only_with(name, getattr(self, name), default, self.scheduler in ("fgvc", "fgfq"),
                             "scheduler is fgvc or fgfq")
        for name, default in (("crossbar_iterations", 0), ("crossbar_output", "stamp")):
            _check.only_with(name, getattr(self, name), default, self.crossbar == "multiplexed",
                             "crossbar is multiplexed")
        _check.assign(self, best_effort_vtick=_check.optional(_check.real, "best_effort_vtick",
                                                              self.best_effort_vtick, 1.0, 1e15))

    @property
    def cycle_seconds(self) -> float:
        """One flit cycle, s: ``flit_bits / link_rate`` (80 ns for 32 b at 400 Mbit/s or 128 b at 1.6 Gbit/s)."""
        return self.flit_bits / self.link_rate

    @property
    def cycles_per_second(self) -> float:
        """Flit cycles per simulated second (12.5e6 at 80 ns)."""
        return self.link_rate / self.flit_bits

    @property
    def crossbar_ports(self) -> int:
        """Crossbar inputs (= outputs): n multiplexed, n m full."""
        return self.n_ports if self.crossbar == "multiplexed" else self.n_ports * self.vcs

    @property
    def scheduling_point(self) -> str:
        """Where the rate-based scheduler arbitrates (§III-D): the crossbar input multiplexer (A) or the VC
        multiplexer (C)."""
        return "crossbar input mux (A)" if self.crossbar == "multiplexed" else "VC mux (C)"

    def describe(self) -> dict:
        return {"n_ports": self.n_ports, "vcs": self.vcs, "flit_bits": self.flit_bits, "link_rate": self.link_rate,
                "crossbar": self.crossbar, "scheduler": self.scheduler, "switching": self.switching,
                "header_stages": self.header_stages, "body_stages": self.body_stages,
                "link_cycles": self.link_cycles, "buffer_messages": self.buffer_messages,
                "vclock_state": self.vclock_state, "best_effort_vtick": self.best_effort_vtick,
                "crossbar_iterations": self.crossbar_iterations, "crossbar_output": self.crossbar_output,
                "best_effort_vcs": self.best_effort_vcs, "best_effort_stamp": self.best_effort_stamp,
                "cycle_seconds": self.cycle_seconds}


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
        (33 ms); at most ``frame_period``.
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
    gop: str = GOP_DEFAULT
    frame_cv: float = 0.2
    sequences: tuple = tuple(TABLE_III)

    def __post_init__(self):
        _check.choice("kind", self.kind, STREAM_KINDS)
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


@dataclass(frozen=True)
class WormholeNetwork:
    """Where the routers sit: one router with node v on port v (``switch``), or Fig. 4's fat mesh.

    ``fatmesh``: a 2 x 2 mesh, neighbours joined by ``parallel`` (2) links, so each router keeps
    ``n_ports - 2 * parallel`` ports for nodes (4 of 8: 16 nodes). Routing is dimension order (x, then y;
    deterministic), a hop taking either parallel link by current load (§III-E). The wiring is
    :func:`switchq.models.topology.mesh`, whose routers carry ``parallel`` ports for all four directions
    (the unused ones unwired).

    Examples
    --------
    >>> WormholeNetwork().nodes, WormholeNetwork(topology="fatmesh").nodes
    (8, 16)
    >>> WormholeNetwork(topology="fatmesh").tables().ports      # 4 node ports + 2 x 4 link ports (4 unwired)
    12
    >>> pcs = WormholeNetwork(WormholeRouter(vcs=24, link_rate=100e6, switching="pcs"))
    >>> pcs.check_traffic(WormholeTraffic(0.91, (100, 0)))            # 22 streams of 4 Mbit/s on 24 VCs
    >>> pcs.check_traffic(WormholeTraffic(1.0, (100, 0)))
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: load: got 1.0; allowed: below 1 for pcs with 24 real-time VCs (one stream per VC)
    >>> WormholeNetwork(WormholeRouter(n_ports=4), topology="fatmesh")
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: n_ports: got 4; allowed: at least 5 for a 2 x 2 fat mesh with 2 links per neighbour
    """

    router: WormholeRouter = field(default_factory=WormholeRouter)
    topology: str = "switch"
    parallel: int = 2

    def __post_init__(self):
        if not isinstance(self.router, WormholeRouter):
            raise _check.InputError("router", self.router, "a WormholeRouter")
        _check.choice("topology", self.topology, TOPOLOGIES)
        _check.assign(self, parallel=_check.integer("parallel", self.parallel, 1, 8))
        if self.topology == "fatmesh" and self.router.n_ports <= 2 * self.parallel:
            raise _check.InputError("n_ports", self.router.n_ports, f"at least {2 * self.parallel + 1} for a 2 x 2 "
                                                                    f"fat mesh with {self.parallel} links per neighbour")

    @property
    def nodes_per_router(self) -> int:
        return self.router.n_ports if self.topology == "switch" else self.router.n_ports - 2 * self.parallel

    @property
    def routers(self) -> int:
        return 1 if self.topology == "switch" else 4

    @property
    def nodes(self) -> int:
        return self.routers * self.nodes_per_router

    def check_traffic(self, traffic) -> None:
        """What this network refuses of a workload: anything but :class:`WormholeTraffic`, a mix that cannot be
        split over its VCs, and, for PCS (one stream per VC), a load whose mean input carries more streams
        than real-time VCs (counted at the streams' nominal rate). Below that, an input drawn one stream more
        than its VCs (:func:`~switchq.models.wormhole_placement.stream_counts`) has it refused at the source."""
        if not isinstance(traffic, WormholeTraffic):
            raise _check.InputError("workload", type(traffic).__name__, "WormholeTraffic")
        # A PCS probe takes the output VC it finds free: there is no placement to choose.
        _check.only_with("placement", traffic.placement, "uniform", self.router.switching == "wormhole",
                         "switching is wormhole")
        m_rt = traffic.realtime_vcs(self.router.vcs)
        if self.router.switching == "pcs" and traffic.realtime_load > 0:
            rate = traffic.streams.nominal_rate / self.router.link_rate
            if int(traffic.realtime_load / rate + 1e-9) > m_rt:
                top = (m_rt + 1) * rate / traffic.realtime_share
                raise _check.InputError("load", traffic.load, f"below {top:.4g} for pcs with {m_rt} real-time VCs "
                                                              "(one stream per VC)")

    def tables(self):
        """Wiring and routing tables (:mod:`switchq.models.topology`), the kernel's only view of the shape."""
        from switchq.models import topology

        if self.topology == "switch":
            return topology.crossbar(self.router.n_ports)
        return topology.mesh(2, 2, self.nodes_per_router, self.parallel)

    def describe(self) -> dict:
        out = {"topology": self.topology, "nodes": self.nodes, "routers": self.routers}
        if self.topology == "fatmesh":
            out["parallel"] = self.parallel
        out.update(self.router.describe())
        return out
