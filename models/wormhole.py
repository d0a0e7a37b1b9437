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
:class:`WormholeNetwork`
    one router with a node on every port (``switch``) or Fig. 4's 2 x 2
    ``fatmesh`` of such routers, neighbours joined by two links.

The video streams and the traffic mix, with the readings of the paper they
take, are :mod:`switchq.models.wormhole_streams` (re-exported here). The
router's readings:

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
>>> WormholeRouter(vcs=0)
Traceback (most recent call last):
...
switchq.errors.InputError: vcs: got 0; allowed: an integer in [1, 256]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from . import _check
from .wormhole_streams import (DESTINATIONS, FRAME_BYTES, FRAME_RATE, FRAME_SD_BYTES, GOP_DEFAULT, HEADERS,
                               LOAD_BASES, PLACEMENTS, REGULATOR_SPAN, REGULATORS, STREAM_KINDS, TABLE_III,
                               VideoStreams, WormholeTraffic)

__all__ = ["WormholeRouter", "VideoStreams", "WormholeTraffic", "WormholeNetwork", "SCHEDULERS", "CROSSBARS",
           "SWITCHING", "STREAM_KINDS", "REGULATORS", "HEADERS", "LOAD_BASES", "DESTINATIONS", "PLACEMENTS",
           "TOPOLOGIES", "VCLOCK_STATES", "CROSSBAR_OUTPUTS", "PROBE_VCS", "TABLE_III",
           "GOP_DEFAULT", "FRAME_BYTES", "FRAME_SD_BYTES", "FRAME_RATE", "REGULATOR_SPAN", "PCS_VCS"]

SCHEDULERS = ("fgvc", "fgfq", "fifo")
CROSSBARS = ("multiplexed", "full")
SWITCHING = ("wormhole", "pcs")
TOPOLOGIES = ("switch", "fatmesh")
VCLOCK_STATES = ("message", "vc")
CROSSBAR_OUTPUTS = ("stamp", "fifo")
BEST_EFFORT_VCS = ("drawn", "free")
BEST_EFFORT_STAMPS = ("vclock", "largest")
PROBE_VCS = ("named", "any")

# Table IV: 24 VCs per physical channel for the PCS router, one stream each.
PCS_VCS = 24


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
        output it waits for its VC while another message holds it, though others may be free). ``switchq report
        mediaworm`` judges every pair of these and ``best_effort_stamp`` on Table V.
    best_effort_stamp : str
        A best-effort flit's stamp under FGVC / FGFQ. §III-D: "for best-effort traffic, the Vtick is assigned the
        largest possible value". ``largest`` (the default): the stamp itself is the largest value (a saturated
        register): every best-effort flit ties, broken by arrival, i.e. FIFO among best effort, below all video.
        ``vclock``: VirtualClock's rule with that Vtick, auxVC <- max(AT, auxVC) + Vtick, so a message's stamps
        grow flit by flit and among best effort the message that has sent least goes first (processor
        sharing), which holds VCs longer and saturates an 8 x 8 router's best effort near 0.85.
    probe_vc : str
        PCS: which output VC a connection's probe asks for, and so when it "cannot progress towards the
        destination" and is dropped (§III-F; the paper names no rule). ``named`` (the default): a uniformly drawn
        real-time VC of its destination, as §IV-B.1 draws a stream's destination VC, dropped when a connection
        holds it; ``any``: any free real-time VC there, dropped only when every one is held.

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
    probe_vc: str = "named"
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
                              ("best_effort_stamp", BEST_EFFORT_STAMPS), ("probe_vc", PROBE_VCS)):
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
        _check.only_with("probe_vc", self.probe_vc, "named", self.switching == "pcs", "switching is pcs")
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
                **({"probe_vc": self.probe_vc} if self.switching == "pcs" else {}),
                "cycle_seconds": self.cycle_seconds}




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
        # A circuit carries its stream at the rate it reserved (§III-F): the unregulated burst is wormhole's reading.
        _check.only_with("regulator", traffic.streams.regulator, "spread", self.router.switching == "wormhole",
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
