"""BookSim2's input-queued virtual-channel router network and its traffic (issue 38).

:class:`IqRouterNetwork`: routers of BookSim2's ``iq`` kind on a ``fly``, ``mesh``, ``torus`` or ``fattree``
(:mod:`switchq.models.iq_topology`), routed as BookSim2 routes each (dest-tag, dimension order with the torus's
dateline VC classes, the fat tree's nearest common ancestor with a random up port). Each input port has
``num_vcs`` VCs of ``vc_buf_size`` flits (BookSim2's private buffers), or, under ``buffer_policy`` shared, one
buffer of ``buf_size`` flits with ``private_buf_size`` reserved per VC and the rest shared; a head is routed (lookahead when
``routing_delay`` is 0), wins an output VC (``vc_allocator``), then each flit wins the crossbar
(``sw_allocator``) and crosses it in ``st_prepare_delay + st_final_delay`` cycles; credits return after the
channel and ``credit_delay``. :class:`IqTraffic`: BookSim2's traffic manager's offered load.

Names are BookSim2's configuration keys, so a file read by :mod:`switchq.models.booksim_config` maps one to one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import _check

__all__ = ["IqRouterNetwork", "IqTraffic", "ALLOCATORS", "BUFFER_POLICIES", "PATTERNS", "ROUTING_OF", "TOPOLOGIES"]

TOPOLOGIES = ("fly", "mesh", "torus", "fattree")       # models.iq_topology wires each (it needs NumPy; this not)
BUFFER_POLICIES = ("private", "shared")       # BookSim2's buffer_policy values modelled
ALLOCATORS = ("islip", "separable_input_first", "separable_output_first")
PATTERNS = ("uniform", "bitcomp", "transpose", "bitrev", "shuffle", "tornado", "neighbor")
# BookSim2's routing function per topology (routing_function + "_" + topology).
ROUTING_OF = {"fly": ("dest_tag",), "mesh": ("dor", "dim_order"), "torus": ("dim_order",), "fattree": ("nca",)}


@dataclass(frozen=True)
class IqRouterNetwork:
    """The network and its routers (BookSim2's defaults where it has them; ``routing_delay`` 1 is BookSim2's).

    >>> IqRouterNetwork("mesh", 8, 2, num_vcs=8, vc_buf_size=8).nodes
    64
    >>> IqRouterNetwork("torus", 4, 2, num_vcs=1)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: num_vcs: got 1; allowed: an even integer in [2, 64] on a torus (its dateline splits the VCs in two classes)
    """

    topology: str = "mesh"
    k: int = 8
    n: int = 2
    num_vcs: int = 16
    vc_buf_size: int = 8
    buffer_policy: str = "private"
    buf_size: int = -1
    private_buf_size: int = 1
    routing_delay: int = 1
    st_prepare_delay: int = 0
    st_final_delay: int = 1
    credit_delay: int = 0
    input_speedup: int = 1
    output_speedup: int = 1
    vc_allocator: str = "islip"
    vc_iterations: int = 1
    sw_allocator: str = "islip"
    sw_iterations: int = 1
    wait_for_tail_credit: bool = False
    hold_switch_for_packet: bool = False
    use_noc_latency: bool = True
    architecture: ClassVar[str] = "iq-router"

    def __post_init__(self):
        _check.assign(self, topology=_check.choice("topology", self.topology, TOPOLOGIES),
                      k=_check.integer("k", self.k, 2, 1 << 16), n=_check.integer("n", self.n, 1, 20),
                      vc_buf_size=_check.integer("vc_buf_size", self.vc_buf_size, 1, 1 << 12),
                      routing_delay=_check.integer("routing_delay", self.routing_delay, 0, 64),
                      st_prepare_delay=_check.integer("st_prepare_delay", self.st_prepare_delay, 0, 64),
                      st_final_delay=_check.integer("st_final_delay", self.st_final_delay, 0, 64),
                      credit_delay=_check.integer("credit_delay", self.credit_delay, 0, 64),
                      vc_allocator=_check.choice("vc_allocator", self.vc_allocator, ALLOCATORS),
                      sw_allocator=_check.choice("sw_allocator", self.sw_allocator, ALLOCATORS),
                      vc_iterations=_check.integer("vc_iterations", self.vc_iterations, 1, 16),
                      sw_iterations=_check.integer("sw_iterations", self.sw_iterations, 1, 16))
        if self.topology == "torus":
            v = _check.integer("num_vcs", self.num_vcs, 1, 64)
            if v < 2 or v % 2:
                raise _check.InputError("num_vcs", v, "an even integer in [2, 64] on a torus (its dateline splits "
                                                      "the VCs in two classes)")
        else:
            v = _check.integer("num_vcs", self.num_vcs, 1, 64)
        _check.assign(self, num_vcs=v,
                      input_speedup=_check.integer("input_speedup", self.input_speedup, 1, v),
                      output_speedup=_check.integer("output_speedup", self.output_speedup, 1, 16))
        _check.assign(self, buffer_policy=_check.choice("buffer_policy", self.buffer_policy, BUFFER_POLICIES),
                      buf_size=_check.integer("buf_size", self.buf_size, -1, 1 << 16),
                      private_buf_size=_check.integer("private_buf_size", self.private_buf_size, -1, 1 << 16))
        if self.buf_size == 0:
            raise _check.InputError("buf_size", 0, "-1 (num_vcs x vc_buf_size) or at least 1 flit")
        if self.buffer_policy == "private" and self.buf_size > 0:
            raise _check.InputError("buf_size", self.buf_size, "-1 with the private policy (its VCs have "
                                                               "vc_buf_size flits; a BookSim2 file's buf_size is "
                                                               "split over them when read)")
        if self.buffer_policy == "shared" and self.output_speedup > 1:
            # Two crossbar outputs may send into one downstream port in a cycle, each having found it not full:
            # BookSim2 then stops ("Shared buffer overflow"); switchq refuses the pair up front.
            raise _check.InputError("output_speedup", self.output_speedup, "1 with the shared buffer policy (BookSim2 "
                                                                           "overflows its shared buffer there)")
        if self.buffer_policy == "shared" and self.num_vcs * self.private_slots > self.port_buffer:
            raise _check.InputError("private_buf_size", self.private_buf_size,
                                    f"at most {self.port_buffer // self.num_vcs} (num_vcs x private_buf_size "
                                    f"within the port's {self.port_buffer} flits)")
        for kind, it in (("vc", self.vc_iterations), ("sw", self.sw_iterations)):
            if it > 1 and getattr(self, f"{kind}_allocator") != "islip":
                raise _check.InputError(f"{kind}_iterations", it, f"1 with {getattr(self, f'{kind}_allocator')} (only "
                                                                  "iSLIP iterates)")
        if self.st_prepare_delay + self.st_final_delay < 1:
            raise _check.InputError("st_final_delay", self.st_final_delay, "at least 1 with st_prepare_delay 0 "
                                                                           "(a flit takes a cycle to cross)")
        for name in ("wait_for_tail_credit", "hold_switch_for_packet", "use_noc_latency"):
            _check.assign(self, **{name: bool(_check.integer(name, int(getattr(self, name)), 0, 1))})

    @property
    def nodes(self) -> int:
        return self.k ** self.n

    @property
    def port_buffer(self) -> int:
        """Flits an input port holds: buf_size, or num_vcs x vc_buf_size where it is -1 (BookSim2's rule)."""
        return self.buf_size if self.buf_size > 0 else self.num_vcs * self.vc_buf_size

    @property
    def private_slots(self) -> int:
        """The shared policy's private slots per VC: private_buf_size, or an even split where it is negative."""
        return self.private_buf_size if self.private_buf_size >= 0 else self.port_buffer // self.num_vcs

    def describe(self) -> dict:
        out = {"architecture": self.architecture}
        out.update({f: getattr(self, f) for f in self.__dataclass_fields__ if f != "architecture"})
        out["nodes"] = self.nodes
        return out

    def check_traffic(self, traffic) -> None:
        if not isinstance(traffic, IqTraffic):
            raise _check.InputError("traffic", type(traffic).__name__, "an IqTraffic")
        traffic.check_nodes(self.nodes, self.k, self.n)


@dataclass(frozen=True)
class IqTraffic:
    """BookSim2's offered load: ``injection_rate`` packets per node per cycle (flits with
    ``injection_rate_uses_flits``), packets of ``packet_size`` flits to ``pattern``'s destinations, Bernoulli or
    on-off (``burst_alpha``, ``burst_beta``, ``burst_r1`` as BookSim2 derives the one left negative);
    ``include_queuing``: a packet's latency counts from its creation in the source queue (BookSim2's default).

    >>> IqTraffic(injection_rate=0.1, packet_size=20, injection_rate_uses_flits=True).packet_rate
    0.005
    >>> round(IqTraffic(injection_rate=0.1, process="on_off").burst_r1_packets, 3)      # r (alpha + beta) / alpha
    0.2
    """

    injection_rate: float = 0.1
    pattern: str = "uniform"
    packet_size: int = 1
    injection_rate_uses_flits: bool = False
    process: str = "bernoulli"
    burst_alpha: float = 0.5
    burst_beta: float = 0.5
    burst_r1: float = -1.0
    include_queuing: bool = True

    def __post_init__(self):
        _check.assign(self, injection_rate=_check.real("injection_rate", self.injection_rate, 0.0, 1.0),
                      pattern=_check.choice("pattern", self.pattern, PATTERNS),
                      packet_size=_check.integer("packet_size", self.packet_size, 1, 4096),
                      process=_check.choice("process", self.process, ("bernoulli", "on_off")))
        if self.process == "on_off":
            negatives = sum(x < 0 for x in (self.burst_alpha, self.burst_beta, self.burst_r1))
            if negatives != 1:
                raise _check.InputError("burst_r1", self.burst_r1, "negative for exactly one of burst_alpha, "
                                                                   "burst_beta and burst_r1 (the one derived)")
            if not 0 <= self.burst_r1_packets <= 1:
                raise _check.InputError("injection_rate", self.injection_rate,
                                        f"a rate whose on-state rate r1 = {self.burst_r1_packets:g} is in [0, 1]")

    @property
    def packet_rate(self) -> float:
        """Packets per node per cycle."""
        r = self.injection_rate
        return r / self.packet_size if self.injection_rate_uses_flits else r

    @property
    def burst_r1_packets(self) -> float:
        """The on state's rate, derived as BookSim2 derives the parameter given negative."""
        r, a, b, r1 = self.packet_rate, self.burst_alpha, self.burst_beta, self.burst_r1
        if r1 < 0:
            return r * (a + b) / a
        return r1

    @property
    def on_off_alpha(self) -> float:
        r, a, b, r1 = self.packet_rate, self.burst_alpha, self.burst_beta, self.burst_r1
        return b * r / (r1 - r) if a < 0 else a

    @property
    def on_off_beta(self) -> float:
        r, a, b, r1 = self.packet_rate, self.burst_alpha, self.burst_beta, self.burst_r1
        return a * (r1 - r) / r if b < 0 else b

    def check_nodes(self, nodes: int, k: int, n: int) -> None:
        if self.pattern in ("bitcomp", "transpose", "bitrev", "shuffle") and nodes & (nodes - 1):
            raise _check.InputError("pattern", self.pattern, f"uniform, tornado or neighbor: {nodes} nodes is not a "
                                                             "power of two (BookSim2's bit patterns need one)")
        if self.pattern == "transpose" and (nodes.bit_length() - 1) % 2:
            raise _check.InputError("pattern", self.pattern, f"not transpose: log2 of {nodes} nodes is odd")

    def describe(self) -> dict:
        out = {"injection_rate": self.injection_rate, "traffic": self.pattern, "packet_size": self.packet_size,
               "injection_rate_uses_flits": self.injection_rate_uses_flits, "injection_process": self.process,
               "include_queuing": self.include_queuing}
        if self.process == "on_off":
            out.update(burst_alpha=self.on_off_alpha, burst_beta=self.on_off_beta, burst_r1=self.burst_r1_packets)
        return out
