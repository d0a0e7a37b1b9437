"""Circuit-switched LANs (HIPPI) of paper 001 (Ma & Steenkiste): the switch and its saturated traffic.

An N x N crossbar carries one circuit per packet: an input and an output
are held together for the connection set-up and the whole transfer
(§2.1). Adapters are saturated (always backlogged). This module only
describes and validates; :mod:`switchq.solvers.circuit` answers and
:mod:`switchq.validate.arch.circuit` simulates.

Where the paper is silent the choice is an option (the report shows which
one reproduces the paper):

- ``claim``: when a set-up request holds the output. ``request`` (default):
  when the request reaches the switch, after the 2 us selection, so the
  output is held for the 5 us set-up and the transfer; ``connect``: only
  once the set-up completes (rejections are still learnt after it).
- ``pointer``: where window / channel round robin resumes after a packet is
  sent. ``next`` (default): at the packet (channel) after it; ``head``: at
  the head of the window (the first channel).
- A rejected attempt is retried at once (its 2 + 5 us are the only back-off).
- ``pool``: logical channels either each always hold packets (None, so L
  >= N - 1 channels carry everything on the ideal switch, §5), or the
  adapter holds ``pool`` packets, each in the channel of its destination,
  and only channel heads may go (a busy destination's packets pile up in
  one channel, §6.4).
- ``destinations``: ``others`` (the paper: "only a single destination" when
  N = 2) or ``all`` (Karol's switch, a node may address itself).
- ``resolution``: the simulator's clock (§2.2). ``1us`` (default, the
  paper's: "the accuracy of the simulator is one microsecond; all events
  scheduled for the same one microsecond time slot are executed in random
  order"): times are whole microseconds (a transfer rounded to the nearest)
  and a tick's events are handled one at a time in random order, each port
  matched as it frees. ``ns``: nanoseconds, and all the circuits ending at
  one nanosecond are matched together, as one batch: with fixed sizes every
  circuit ends together and the switch is the slotted one of Hluchyj &
  Karol, but a size spread of one byte breaks the ties (ties at a
  nanosecond are an artefact of fixed sizes, so ``ns`` is a reading).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

from . import _check

__all__ = ["CircuitSwitch", "CircuitTraffic", "SCHEDULING", "CONTROL", "SIZES", "DESTINATIONS", "POINTERS",
           "CLAIMS", "RESOLUTIONS"]

SCHEDULING = ("fifo", "window", "channels")
CONTROL = ("distributed", "central")
SIZES = ("fixed", "uniform", "bimodal", "train")
BIMODAL = ("bimodal", "train")     # the size laws with short and long packets
DESTINATIONS = ("others", "all")
POINTERS = ("next", "head")
CLAIMS = ("request", "connect")
RESOLUTIONS = ("1us", "ns")
MAX_PACKET_BYTES = 1 << 24


def _only_where(model, *rules) -> None:
    """``rules``: ``(fields, holds, where)``; each field other than its default where ``holds`` is False is
    refused in one line (:func:`switchq.models._check.only_with`)."""
    defaults = {f.name: f.default for f in fields(model)}
    for names, holds, where in rules:
        for name in names:
            _check.only_with(name, getattr(model, name), defaults[name], holds, where)


@dataclass(frozen=True)
class CircuitSwitch:
    """One circuit switch and its adapters (paper 001 §2.1), validated on construction.

    ``window``: packets of the FIFO the adapter may try (1 for ``fifo``); ``channels``: logical channels L
    (``channels`` scheduling). Times are seconds, ``link_rate`` bit/s. Central control pays
    ``select_time`` once per packet and is never rejected; distributed control pays
    ``select_time + setup_time`` per attempt, successful or not. ``resolution``: the clock and its tie rule
    (module docstring). A field that takes no effect in a configuration (``pointer`` without window or channel
    scheduling; ``claim`` and ``setup_time`` under central control) is refused there unless at its default.

    Examples
    --------
    >>> CircuitSwitch(32, "window", window=16).slots
    16
    >>> CircuitSwitch(4, "fifo", window=3)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: window: got 3; allowed: 1 with scheduling fifo (use scheduling window)
    """

    n_ports: int
    scheduling: str = "fifo"
    window: int = 1
    channels: int = 1
    control: str = "distributed"
    select_time: float = 2e-6
    setup_time: float = 5e-6
    link_rate: float = 800e6
    pointer: str = "next"
    claim: str = "request"
    pool: int | None = None
    resolution: str = "1us"
    architecture: ClassVar[str] = "circuit"

    def __post_init__(self):
        _check.assign(self, n_ports=_check.integer("n_ports", self.n_ports, 2, 1024),
                      window=_check.integer("window", self.window, 1, 1024),
                      channels=_check.integer("channels", self.channels, 1, 1024),
                      select_time=_check.real("select_time", self.select_time, 0.0, 1.0),
                      setup_time=_check.real("setup_time", self.setup_time, 0.0, 1.0),
                      link_rate=_check.real("link_rate", self.link_rate, 1e3, 1e13),
                      pool=_check.optional(_check.integer, "pool", self.pool, 1, 4096))
        for name, choices in (("scheduling", SCHEDULING), ("control", CONTROL), ("pointer", POINTERS),
                              ("claim", CLAIMS), ("resolution", RESOLUTIONS)):
            _check.choice(name, getattr(self, name), choices)
        if self.scheduling == "fifo" and self.window != 1:
            raise _check.InputError("window", self.window, "1 with scheduling fifo (use scheduling window)")
        if self.scheduling == "channels" and self.window != 1:   # its slots are the channels (or the pool)
            raise _check.InputError("window", self.window, "1 unless scheduling is window")
        if self.scheduling != "channels" and self.channels != 1:
            raise _check.InputError("channels", self.channels, "1 unless scheduling is channels")
        if self.scheduling != "channels" and self.pool is not None:
            raise _check.InputError("pool", self.pool, "none unless scheduling is channels")
        # As switchq.architectures.circuit declares them (``applies``): a FIFO adapter has no round robin to
        # resume, and central control never sets a circuit up, so it has no claim and no set-up time.
        _only_where(self, (("pointer",), self.scheduling in ("window", "channels"),
                           "scheduling is window or channels"),
                    (("claim", "setup_time"), self.control == "distributed", "control is distributed"))
        for name in ("select_time", "setup_time"):     # the 1 us clock keeps whole microseconds
            if self.resolution == "1us" and 0 < getattr(self, name) < 0.5e-6:
                raise _check.InputError(name, getattr(self, name), "0 or at least 0.5us with resolution 1us "
                                                                   "(whole microseconds; use resolution ns)")

    @property
    def slots(self) -> int:
        """Packets the adapter holds for its scheduler: the window, its pool, or one head per logical channel."""
        if self.scheduling == "channels":
            return self.channels if self.pool is None else self.pool
        return self.window

    @property
    def ideal(self) -> bool:
        """No overhead at all: the paper's ideal switch, where distributed and central control coincide."""
        return self.select_time == 0 and (self.control == "central" or self.setup_time == 0)

    @property
    def matched(self) -> bool:
        """Whether circuits are granted by a central matcher (central control, or the ideal switch)."""
        return self.control == "central" or self.ideal

    def check_traffic(self, traffic) -> None:
        if traffic.file_servers >= self.n_ports:
            raise _check.InputError("file_servers", traffic.file_servers, f"an integer in [0, {self.n_ports - 1}] "
                                                                          f"(below --ports {self.n_ports})")
        if traffic.file_servers and self.scheduling == "channels" and self.pool is None:
            raise _check.InputError("file_servers", traffic.file_servers, "0 with backlogged channels (give --pool)")
        if self.n_ports == 2 and traffic.file_servers:
            raise _check.InputError("file_servers", traffic.file_servers, "0 for 2 ports")

    def describe(self) -> dict:
        out = {"architecture": "circuit", "n_ports": self.n_ports, "scheduling": self.scheduling,
               "window": self.window, "channels": self.channels, "control": self.control,
               "select_time": self.select_time, "setup_time": self.setup_time, "link_rate": self.link_rate,
               "pointer": self.pointer, "claim": self.claim, "pool": self.pool,
               "resolution": self.resolution}
        if self.control == "central":     # no set-up: its time and claim are the unused defaults, not shown
            del out["setup_time"], out["claim"]
        return out


@dataclass(frozen=True)
class CircuitTraffic:
    """Saturated adapters: packet sizes (bytes), destinations, the file-server mix, and the run length.

    ``sizes``: ``fixed`` (``size``), ``uniform`` on [``size_min``, ``size_max``], ``bimodal``
    (``short``, ``long``, ``long_bytes`` = share of the bytes in long packets, as the paper
    parameterises it) or ``train`` (bimodal whose long packets are sent as ``train`` back-to-back
    packets of ``long / train`` bytes to one destination, §7.1). ``file_servers`` > 0: the §7.2 mix
    (clients send ``server_share`` of their bytes to the servers with ``server_long_bytes`` in long
    packets, the rest to other clients with ``long_bytes``; servers send only to clients, with
    ``server_long_bytes``). ``seconds`` measured after ``warmup_seconds`` of simulated time. A field is taken only
    where it takes effect (another law's sizes, ``destinations`` with file servers, the servers' mix without
    them are refused unless at their defaults).

    Examples
    --------
    >>> t = CircuitTraffic("bimodal", short=100, long=16000, long_bytes=0.9)
    >>> round(t.long_packet_share(0.9), 5)     # 0.9/16000 long packets per byte vs 0.1/100 short
    0.05325
    >>> round(t.mean_bytes(0.9), 1)
    946.7
    >>> CircuitTraffic("uniform", size_min=500, size_max=100)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: size_max: got 100; allowed: an integer in [500, 16777216]
    """

    sizes: str = "fixed"
    size: int = 2000
    size_min: int = 0
    size_max: int = 32000
    short: int = 100
    long: int = 16000
    long_bytes: float = 0.9
    train: int = 8
    destinations: str = "others"
    file_servers: int = 0
    server_share: float = 0.8
    server_long_bytes: float = 0.98
    seconds: float = 5.0
    warmup_seconds: float | None = None

    def __post_init__(self):
        _check.choice("sizes", self.sizes, SIZES)
        _check.choice("destinations", self.destinations, DESTINATIONS)
        _check.assign(self, size=_check.integer("size", self.size, 1, MAX_PACKET_BYTES),
                      size_min=_check.integer("size_min", self.size_min, 0, MAX_PACKET_BYTES),
                      short=_check.integer("short", self.short, 1, MAX_PACKET_BYTES),
                      train=_check.integer("train", self.train, 1, 1024),
                      long_bytes=_check.real("long_bytes", self.long_bytes, 0.0, 1.0),
                      server_share=_check.real("server_share", self.server_share, 0.0, 1.0),
                      server_long_bytes=_check.real("server_long_bytes", self.server_long_bytes, 0.0, 1.0),
                      file_servers=_check.integer("file_servers", self.file_servers, 0, 1023),
                      seconds=_check.real("seconds", self.seconds, 1e-4, 1e4))
        self._refuse_what_has_no_effect()     # before the bounds one size sets another (long >= short)
        _check.assign(self, size_max=_check.integer("size_max", self.size_max, max(1, self.size_min),
                                                    MAX_PACKET_BYTES),
                      long=_check.integer("long", self.long, self.short, MAX_PACKET_BYTES))
        if self.sizes == "train" and self.long % self.train:
            raise _check.InputError("train", self.train, f"a divisor of long ({self.long} bytes): a long packet "
                                                         "is sent as train packets of equal size")
        warm = round(0.1 * self.seconds, 12) if self.warmup_seconds is None else self.warmup_seconds
        _check.assign(self, warmup_seconds=_check.real("warmup_seconds", warm, 0.0, 1e4))

    def _refuse_what_has_no_effect(self) -> None:
        """Each field only where it takes effect, as switchq.architectures.circuit declares it (``applies``):
        a size law reads its own sizes, and file servers pick their own destinations."""
        law, servers = self.sizes, self.file_servers >= 1
        _only_where(self, (("size",), law == "fixed", "sizes is fixed"),
                    (("size_min", "size_max"), law == "uniform", "sizes is uniform"),
                    (("short", "long", "long_bytes"), law in BIMODAL, "sizes is bimodal or train"),
                    (("train",), law == "train", "sizes is train"),
                    (("destinations",), not servers, "file_servers is 0"),
                    (("server_share",), servers, "file_servers is 1 or more"),
                    (("server_long_bytes",), servers and law in BIMODAL,
                     "file_servers is 1 or more and sizes is bimodal or train"))

    def long_packet_share(self, long_bytes: float) -> float:
        """Share of the packets (messages, for trains) that are long when ``long_bytes`` of the bytes are."""
        per_long, per_short = long_bytes / self.long, (1.0 - long_bytes) / self.short
        return per_long / (per_long + per_short)

    def mean_bytes(self, long_bytes: float | None = None) -> float:
        """Mean packet size in bytes (a train's packets counted one by one)."""
        f = self.long_bytes if long_bytes is None else long_bytes
        if self.sizes == "fixed":
            return float(self.size)
        if self.sizes == "uniform":
            return (self.size_min + self.size_max) / 2
        p = self.long_packet_share(f)
        k = self.train if self.sizes == "train" else 1
        return (p * self.long + (1 - p) * self.short) / (p * k + 1 - p)

    def describe(self) -> dict:
        out = {"sizes": self.sizes}
        if self.sizes == "fixed":
            out["size"] = self.size
        elif self.sizes == "uniform":
            out.update(size_min=self.size_min, size_max=self.size_max)
        else:
            out.update(short=self.short, long=self.long, long_bytes=self.long_bytes)
            if self.sizes == "train":
                out["train"] = self.train
        out["destinations"] = self.destinations
        if self.file_servers:
            out.update(file_servers=self.file_servers, server_share=self.server_share,
                       server_long_bytes=self.server_long_bytes)
        out.update(seconds=self.seconds, warmup_seconds=self.warmup_seconds)
        return out
