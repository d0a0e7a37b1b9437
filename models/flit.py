"""Flit-level switches, the networks built from them, and message traffic (paper 000 §2-§5).

Paper 000 (Sivaram, Stunkel & Panda, HIPIQS) compares *buffer organisations*
of a k-port cut-through switch moving messages flit by flit:

``fifo``
    one FIFO queue per input; only the head message can move (HOL blocking, §2.1).
``safc``
    statically allocated, fully connected: each input's buffer cut into k
    equal partitions, one per output, each readable at once (crosspoint
    buffering, §2.1; Tamir & Frazier's SAFC).
``damq``
    one shared buffer per input holding a linked-list queue per output
    (dynamically allocated), but one read port: one message leaves an input at
    a time, outputs matched to inputs by a central arbiter (§2.1).
``hipiqs``
    DAMQ's shared input buffer, stored in k-flit chunks over k banks so that
    every output can read its queue at once, a 2k-flit FIFO unit per
    input/output pair, partially filled chunks refilled by the next message of
    the same queue, each output choosing its input on its own (§3).
``central``
    SP2-style output queuing in one shared central buffer read and written
    in k-flit chunks (a chunk never holds two messages), small input FIFOs (§2.2).

Storage is compared at equal totals per switch, as the paper does (§5.1):
``buffer_flits`` per input for the input-queued organisations, and for
``central`` the same total, ``ports * buffer_flits``, split into small input
FIFOs (``central_input_flits``, default 2k) and the central buffer.

No mathematics and no simulation here: validated descriptions only.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _check
from .network import FatTree

__all__ = ["BUFFER_ORGS", "CENTRAL_ADMISSIONS", "UP_SELECTS", "FIFO_ROUTINGS", "CROSSPOINT_STORAGES", "FLIT_PATTERNS", "FLIT_ARRIVALS", "ARBITRATIONS",
           "FlitSwitch", "FlitNetwork",
           "MessageTraffic"]

BUFFER_ORGS = ("fifo", "safc", "damq", "hipiqs", "central")
FLIT_PATTERNS = ("uniform", "bitrev", "transpose")
FLIT_ARRIVALS = ("bernoulli", "poisson")
# How an output picks among inputs holding a message for it: a round-robin pointer per output (the
# paper is silent; rr is fair and cheap in hardware), or a random input each time (Karol's model).
ARBITRATIONS = ("rr", "random")
# Uniform destinations: any other node (the default on a network), or any node including the sender
# (Karol's single switch, where input i may send to output i).
UNIFORM_OVER = ("others", "all")
CENTRAL_ADMISSIONS = ("packet", "flit")
UP_SELECTS = ("input", "output")
FIFO_ROUTINGS = ("head", "arrival", "destination")
CROSSPOINT_STORAGES = ("extra", "within")
MAX_MESSAGE_FLITS = 1 << 16


@dataclass(frozen=True)
class FlitSwitch:
    """A k-port cut-through switch moving flits, validated on construction.

    Parameters
    ----------
    ports : int
        k, ports per switch (8 in paper 000's BMIN); also the chunk size and the bank count.
    buffer_org : str
        One of :data:`BUFFER_ORGS`.
    buffer_flits : int
        Input buffer per port in flits (320, 640, 1280 in the paper); ``central`` uses the same total.
    flit_bytes : int
        Link width (2 bytes in the paper): converts flits to bytes in reports; the kernel counts flits.
    bypass_cycles, buffered_cycles : int
        Cycles from a header's arrival in the input register to the output link when it arrives at the
        head of its queue (Fig. 5, Pipe 1: IR -> R4 -> OB) and when it arrives behind another message
        (Pipe 3: IR -> R1 -> buffer -> R2 -> R3' -> R4 -> OB), where the deeper pipeline fills while
        the message ahead leaves.
    crosspoint_flits : int or None
        HIPIQS: FIFO unit per input/output pair (at least two chunks, 2k, §3.2). Default 2k.
    central_input_flits : int or None
        ``central``: each input's small FIFO. Default 2k (one chunk being assembled, one waiting for
        the write turn); the central buffer gets the rest of the total.
    up_share : float
        ``central``: share of the central buffer that messages going up the tree may hold. A shared
        buffer holding both directions can deadlock a BMIN (a switch full of messages going down to a
        child that is full of messages going up to it); keeping room for messages going down breaks
        every such cycle. The paper does not say how the SP2 avoids it.
    arbitration : str
        One of :data:`ARBITRATIONS`.
    up_select : str
        Where a route may go up several ports, the one whose queue in this input's buffer holds the fewest
        flits (``input``, the default: §3.4's routing logic sees the status signals of its own input
        module's queues), or whose output at the switch has the fewest queued from all inputs (``output``).
        Paper 000 only says packets travel "adaptively" up; reports/hipiqs.md runs both.
    fifo_routing : str
        ``fifo``: a message picks among its up ports when it reaches the head of the FIFO, taking any that
        is free (``head``), or on arrival, then waits at the head for that port (``arrival``: the port with
        the fewest messages waiting for it), or goes up the one port its destination's digit names
        (``destination``: d-mod-k, as a non-adaptive BMIN routes).
    crosspoint_storage : str
        HIPIQS: the FIFO units come on top of ``buffer_flits`` (``extra``, the default: §3.2 lists "an input
        buffer, ... and k small FIFO units" as the input module's components, and §5.1 equalises "all the
        input buffers" with the central buffer and its small input buffers) or out of it (``within``: the
        shared buffer keeps ``buffer_flits - ports * crosspoint_flits``, every flit of storage counted).
    central_admission : str
        ``central``: a packet leaves its input FIFO for the shared buffer only when the chunks it needs are
        free (``packet``, virtual cut-through into the buffer, the default: those chunks are then reserved for
        it), or chunk by chunk as they free (``flit``). The paper does not say; with ``flit`` partly admitted
        packets hold the buffer, and the switch collapses past saturation or deadlocks.

    Examples
    --------
    >>> s = FlitSwitch(8, "hipiqs", 640)
    >>> s.chunk_flits, s.crosspoint_flits, s.total_flits
    (8, 16, 5120)
    >>> c = FlitSwitch(8, "central", 640)
    >>> c.central_input_flits, c.central_flits
    (16, 4992)
    >>> FlitSwitch(8, "fifo", 4)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: buffer_flits: got 4; allowed: an integer >= 8 for 8 ports (one chunk at least)
    """

    ports: int = 8
    buffer_org: str = "hipiqs"
    buffer_flits: int = 640
    flit_bytes: int = 2
    bypass_cycles: int = 2
    buffered_cycles: int = 6
    crosspoint_flits: int | None = None
    central_input_flits: int | None = None
    up_share: float = 0.5
    arbitration: str = "rr"
    central_admission: str = "packet"
    up_select: str = "input"
    fifo_routing: str = "head"
    crosspoint_storage: str = "extra"

    def __post_init__(self):
        k = _check.integer("ports", self.ports, 2, 64)
        org = _check.choice("buffer_org", self.buffer_org, BUFFER_ORGS)
        # Each organisation's own options: elsewhere a value would be silently ignored (2k is the default).
        if self.crosspoint_flits != 2 * k:
            _check.only_with("crosspoint_flits", self.crosspoint_flits, None, org == "hipiqs", "buffer_org is hipiqs")
        if self.central_input_flits != 2 * k:
            _check.only_with("central_input_flits", self.central_input_flits, None, org == "central",
                             "buffer_org is central")
        for name, default in (("up_share", 0.5), ("central_admission", "packet")):
            _check.only_with(name, getattr(self, name), default, org == "central", "buffer_org is central")
        _check.only_with("crosspoint_storage", self.crosspoint_storage, "extra", org == "hipiqs",
                         "buffer_org is hipiqs")
        _check.only_with("fifo_routing", self.fifo_routing, "head", org == "fifo", "buffer_org is fifo")
        _check.only_with("up_select", self.up_select, "input", org in ("safc", "damq", "hipiqs"),
                         "buffer_org is safc, damq or hipiqs")
        b = _check.integer("buffer_flits", self.buffer_flits)
        if b < k or b > 1 << 20:
            raise _check.InputError("buffer_flits", self.buffer_flits,
                                    f"an integer >= {k} for {k} ports (one chunk at least)"
                                    if b < k else "an integer <= 1048576")
        if self.buffer_org == "safc" and b % k:
            raise _check.InputError("buffer_flits", self.buffer_flits,
                                    f"a multiple of {k} for safc (k equal partitions)")
        _check.assign(self, ports=k, buffer_flits=b,
                      flit_bytes=_check.integer("flit_bytes", self.flit_bytes, 1, 1024),
                      bypass_cycles=_check.integer("bypass_cycles", self.bypass_cycles, 1, 64),
                      buffered_cycles=_check.integer("buffered_cycles", self.buffered_cycles, 1, 64),
                      crosspoint_flits=_check.integer("crosspoint_flits", 2 * k if self.crosspoint_flits is None
                                                      else self.crosspoint_flits, 1, 1 << 16),
                      up_share=_check.real("up_share", self.up_share, 0.0, 1.0, low_open=True, high_open=True))
        _check.choice("arbitration", self.arbitration, ARBITRATIONS)
        _check.choice("central_admission", self.central_admission, CENTRAL_ADMISSIONS)
        _check.choice("up_select", self.up_select, UP_SELECTS)
        _check.choice("fifo_routing", self.fifo_routing, FIFO_ROUTINGS)
        _check.choice("crosspoint_storage", self.crosspoint_storage, CROSSPOINT_STORAGES)
        if self.buffer_org == "hipiqs" and self.crosspoint_storage == "within" and self.shared_flits < k:
            raise _check.InputError("crosspoint_flits", self.crosspoint_flits,
                                    f"at most {(b - k) // k} with crosspoint_storage within (buffer_flits {b} must "
                                    "keep a chunk)")
        c_in = 2 * k if self.central_input_flits is None else self.central_input_flits
        c_in = _check.integer("central_input_flits", c_in, 1, 1 << 20)
        _check.assign(self, central_input_flits=c_in)
        if self.buffer_org == "central" and self.central_flits < 2 * k:
            raise _check.InputError("buffer_flits", self.buffer_flits,
                                    f"room for two chunks of central buffer after the {c_in}-flit input FIFOs")

    @property
    def chunk_flits(self) -> int:
        """k: the chunk (HIPIQS input buffer, central buffer) is one flit from each of k banks."""
        return self.ports

    @property
    def total_flits(self) -> int:
        """Buffer storage per switch the organisations are compared at (crosspoint FIFO units not counted)."""
        return self.ports * self.buffer_flits

    @property
    def shared_flits(self) -> int:
        """HIPIQS: the shared (chunked) part of each input buffer."""
        if self.crosspoint_storage == "within":
            return self.buffer_flits - self.ports * self.crosspoint_flits
        return self.buffer_flits

    @property
    def central_flits(self) -> int:
        """``central``: the shared buffer, what the total leaves after the input FIFOs."""
        return self.total_flits - self.ports * self.central_input_flits

    def describe(self) -> dict:
        out = {"switch_ports": self.ports, "buffer_org": self.buffer_org, "buffer_flits": self.buffer_flits,
               "flit_bytes": self.flit_bytes, "bypass_cycles": self.bypass_cycles,
               "buffered_cycles": self.buffered_cycles, "arbitration": self.arbitration, "up_select": self.up_select}
        if self.buffer_org == "hipiqs":
            out.update(crosspoint_flits=self.crosspoint_flits, crosspoint_storage=self.crosspoint_storage)
        if self.buffer_org == "fifo":
            out["fifo_routing"] = self.fifo_routing
        if self.buffer_org == "central":
            out.update(central_input_flits=self.central_input_flits, central_flits=self.central_flits,
                       up_share=self.up_share, central_admission=self.central_admission)
        return out


@dataclass(frozen=True)
class FlitNetwork:
    """Nodes joined by :class:`FlitSwitch` es: a BMIN (a k-ary n-tree, turnaround routing) or one switch.

    Paper 000 §5.1's base system, 16 nodes on a 2-stage BMIN of 8 8-port
    switches, is the 4-ary 2-tree. Its 64-node system's topology is not given;
    the 4-ary 3-tree (3 stages of 16 8-port switches) is the natural reading,
    and ``boards`` the SP2's own way up to 80 nodes: 16-node boards (2-stage
    trees) cabled to each other directly (:func:`switchq.models.topology.boards`).
    ``topology="crossbar"`` is one switch with a node on each port (for the
    single-switch HOL checks). A hop costs ``link_delay`` cycles on the wire
    on top of the switch's pipeline.

    Two readings of what the paper leaves unsaid (§3-§5 give no flow control and no source for the adaptive
    choice's information), both 0 by default, the most literal reading (nothing delays what is not said to):
    ``credit_delay`` cycles before a place freed in a buffer can be used by the link feeding it (a credit's
    return trip; 0: the sender knows at once), and ``routing_age``, how many cycles old the queue lengths are
    that the sender's adaptive choice of the next switch's queue reads (0: as they are in the same cycle).

    Examples
    --------
    >>> n = FlitNetwork.bmin(16)
    >>> n.tree, n.nodes, n.switches
    (FatTree(k=4, n=2), 16, 8)
    >>> FlitNetwork.bmin(64).switches
    48
    >>> FlitNetwork.single(8, FlitSwitch(8, "fifo")).nodes
    8
    >>> FlitNetwork.sp2(64).switches, FlitNetwork.sp2(64).topology
    (32, 'boards')
    """

    switch: FlitSwitch
    tree: FatTree | None = None
    link_delay: int = 1
    boards: int | None = None
    credit_delay: int = 0
    routing_age: int = 0

    def __post_init__(self):
        if not isinstance(self.switch, FlitSwitch):
            raise _check.InputError("switch", self.switch, "a FlitSwitch")
        if self.tree is not None and self.tree.switch_ports != self.switch.ports:
            raise _check.InputError("ports", self.switch.ports, f"{self.tree.switch_ports} for {self.tree}")
        _check.assign(self, link_delay=_check.integer("link_delay", self.link_delay, 1, 1024),
                      credit_delay=_check.integer("credit_delay", self.credit_delay, 0, 1024),
                      routing_age=_check.integer("routing_age", self.routing_age, 0, 1024))
        _check.only_with("routing_age", self.routing_age, 0, self.switch.buffer_org in ("safc", "damq", "hipiqs")
                         and (self.tree is not None or self.boards is not None),
                         "a route may choose its queue at the next switch (safc, damq or hipiqs on a bmin or boards)")
        if self.tree is None and self.boards is None:     # one crossbar: a single route to each node
            for name, default in (("up_select", "input"), ("fifo_routing", "head")):
                _check.only_with(name, getattr(self.switch, name), default, False, "topology is bmin or boards")
        if self.boards is not None:
            if self.tree is not None:
                raise _check.InputError("boards", self.boards, "none with a tree (one topology)")
            if self.switch.buffer_org == "fifo" and self.switch.fifo_routing == "destination":
                raise _check.InputError("fifo_routing", "destination", "head or arrival on boards (the "
                                        "destination's digit names an up port on a BMIN only)")

    @classmethod
    def bmin(cls, nodes: int = 16, switch: FlitSwitch | None = None, link_delay: int = 1, credit_delay: int = 0,
             routing_age: int = 0) -> "FlitNetwork":
        """The BMIN of ``nodes`` nodes built from ``switch`` (default an 8-port HIPIQS, 640 flits)."""
        switch = FlitSwitch() if switch is None else switch
        return cls(switch, FatTree.for_nodes(nodes, switch.ports), link_delay, None, credit_delay, routing_age)

    @classmethod
    def sp2(cls, nodes: int = 64, switch: FlitSwitch | None = None, link_delay: int = 1, credit_delay: int = 0,
            routing_age: int = 0) -> "FlitNetwork":
        """``nodes / (k/2)^2`` SP2-style boards of 2-stage trees joined directly (2 to 5 boards of 16 nodes for
        8-port switches)."""
        from .topology import board_counts     # here: describing a network imports no NumPy

        switch = FlitSwitch() if switch is None else switch
        per_board = (switch.ports // 2) ** 2
        fits = board_counts(per_board)       # a board has as many external links as nodes
        if switch.ports % 2 or nodes % per_board or nodes // per_board not in fits:
            raise _check.InputError("nodes", nodes, f"one of {', '.join(str(b * per_board) for b in fits[:8])} on "
                                    f"boards of {per_board} nodes ({switch.ports}-port switches)")
        return cls(switch, None, link_delay, nodes // per_board, credit_delay, routing_age)

    @classmethod
    def single(cls, n_ports: int, switch: FlitSwitch, link_delay: int = 1, credit_delay: int = 0) -> "FlitNetwork":
        """One ``n_ports``-port switch, node v on port v."""
        if switch.ports != n_ports:
            raise _check.InputError("ports", n_ports, f"{switch.ports}, the switch's ports")
        return cls(switch, None, link_delay, None, credit_delay)

    @property
    def topology(self) -> str:
        return "boards" if self.boards else "crossbar" if self.tree is None else "bmin"

    @property
    def nodes(self) -> int:
        if self.boards:
            return self.boards * (self.switch.ports // 2) ** 2
        return self.switch.ports if self.tree is None else self.tree.nodes

    @property
    def switches(self) -> int:
        if self.boards:
            return self.boards * self.switch.ports
        return 1 if self.tree is None else self.tree.switches

    def tables(self):
        """Wiring and routing tables (:mod:`switchq.models.topology`), the kernel's only view of the shape."""
        from switchq.models import topology

        if self.boards:
            return topology.boards(self.boards, self.switch.ports // 2)
        if self.tree is None:
            return topology.crossbar(self.switch.ports)
        s = self.switch
        return topology.fat_tree(self.tree, s.buffer_org == "fifo" and s.fifo_routing == "destination")

    def describe(self) -> dict:
        shape = (f"BMIN ({self.tree.name})" if self.tree is not None else self.tables().name if self.boards
                 else self.topology)
        out = {"topology": shape, "nodes": self.nodes, "switches": self.switches, "link_delay": self.link_delay}
        out.update({name: getattr(self, name) for name in ("credit_delay", "routing_age") if getattr(self, name)})
        out.update(self.switch.describe())
        return out

    def check_traffic(self, traffic) -> None:
        if not isinstance(traffic, MessageTraffic):
            raise _check.InputError("workload", type(traffic).__name__, "MessageTraffic")
        n = self.nodes
        if traffic.pattern == "bitrev" and n & (n - 1):
            raise _check.InputError("nodes", n, "a power of two for traffic bitrev")
        if traffic.pattern == "transpose" and (n & (n - 1) or (n.bit_length() - 1) % 2):
            raise _check.InputError("nodes", n, "an even power of two (4, 16, 64, ...) for traffic transpose")
        if traffic.pattern == "uniform" and traffic.uniform_over == "others" and n < 2:
            raise _check.InputError("nodes", n, "at least 2 for uniform traffic over the other nodes")
        s = self.switch
        if s.buffer_org == "central" and s.central_admission == "packet":
            # A packet admitted whole reserves its chunks within its direction's share: one larger than a share
            # could only be admitted in part, and the tail of a part-reserved packet can starve (a deadlock).
            chunks = s.central_flits // s.ports
            up = max(1, int(s.up_share * chunks))
            share = min(up, chunks - up) * s.ports
            flits = traffic.message_flits if traffic.packet_flits is None else traffic.packet_flits
            if flits > share:
                name = "message_flits" if traffic.packet_flits is None else "packet_flits"
                raise _check.InputError(name, flits, f"at most {share} flits, the smaller share of the central "
                                        f"buffer's {chunks} chunks (up share {s.up_share:g}), with central_admission "
                                        "packet")


@dataclass(frozen=True)
class MessageTraffic:
    """Messages offered by every node, validated on construction (paper 000 §5.1).

    Parameters
    ----------
    load : float
        Applied load: flits injected per node per cycle as a share of the injection link, in [0, 1].
    message_flits : int
        Fixed message length M in flits (64 to 256 in the paper).
    packet_flits : int or None
        §5.4: cut each message into packets of this many flits (the last shorter); None: one packet.
    arrivals : str
        ``bernoulli``: a message starts at each node in each cycle with probability load / M;
        ``poisson``: a Poisson number of them, mean load / M. The paper does not say which it used.
    pattern : str
        ``uniform``, ``bitrev`` or ``transpose`` (§5.5); a permutation's fixed points send to themselves,
        looping through their leaf switch.
    uniform_over : str
        ``others`` (uniform over the other nodes) or ``all`` (the sender included, as in Karol's model).

    Examples
    --------
    >>> t = MessageTraffic(0.5, 64, packet_flits=64)
    >>> t.messages_per_cycle, t.packets_per_message
    (0.0078125, 1)
    >>> MessageTraffic(0.5, 64, pattern="shuffle")
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: pattern: got 'shuffle'; allowed: one of uniform, bitrev, transpose
    """

    load: float
    message_flits: int = 64
    packet_flits: int | None = None
    arrivals: str = "bernoulli"
    pattern: str = "uniform"
    uniform_over: str = "others"

    def __post_init__(self):
        m = _check.integer("message_flits", self.message_flits, 1, MAX_MESSAGE_FLITS)
        p = _check.optional(_check.integer, "packet_flits", self.packet_flits, 1, MAX_MESSAGE_FLITS)
        _check.assign(self, load=_check.real("load", self.load, 0.0, 1.0), message_flits=m,
                      packet_flits=None if p is None or p >= m else p)
        _check.choice("arrivals", self.arrivals, FLIT_ARRIVALS)
        _check.choice("pattern", self.pattern, FLIT_PATTERNS)
        _check.choice("uniform_over", self.uniform_over, UNIFORM_OVER)
        _check.only_with("uniform_over", self.uniform_over, "others", self.pattern == "uniform", "pattern is uniform")
        if self.packets_per_message > 64:
            raise _check.InputError("packet_flits", self.packet_flits,
                                    f"at least {-(-m // 64)} for {m}-flit messages (at most 64 packets a message)")

    @property
    def messages_per_cycle(self) -> float:
        """Message starts per node per cycle: load / M."""
        return self.load / self.message_flits

    @property
    def packets_per_message(self) -> int:
        return 1 if self.packet_flits is None else -(-self.message_flits // self.packet_flits)

    def describe(self) -> dict:
        out = {"load": self.load, "message_flits": self.message_flits, "arrivals": self.arrivals,
               "pattern": self.pattern}
        if self.packet_flits is not None:
            out["packet_flits"] = self.packet_flits
        if self.pattern == "uniform":
            out["uniform_over"] = self.uniform_over
        return out
