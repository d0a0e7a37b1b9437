"""Multicast switches: the configuration (paper 003 §2, §3.1).

``oq-crosspoint``
    Output queuing with a crosspoint buffer of ``crosspoint_cells`` per
    (input, output) and credits that come back only when a packet's last
    copy has left (the packet crosses the crossbar once).
``iq-split``, ``iq-nosplit``
    FIFO input queuing with and without fanout splitting, the outputs of a
    split switch choosing at random;
``iq-wba``
    splitting with the weight based algorithm (Prabhakar, McKeown & Ahuja
    1997: HOL age minus residue), simulated only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import _check
from .switch import SingleSwitch

__all__ = ["MulticastSwitch", "MULTICAST_ARCHITECTURES", "MAX_MULTICAST_PORTS"]

MULTICAST_ARCHITECTURES = ("oq-crosspoint", "iq-split", "iq-nosplit", "iq-wba")
# Multicast destination sets are 64-bit masks in the simulator.
MAX_MULTICAST_PORTS = 64


@dataclass(frozen=True)
class MulticastSwitch(SingleSwitch):
    """A multicast switch of ``architecture`` (one of ``MULTICAST_ARCHITECTURES``), N in [1, 64].

    ``crosspoint_cells``: packets per crosspoint buffer of ``oq-crosspoint`` (the paper uses 2 and 4); the
    input-queued switches have none, and refuse any size but the default.

    Examples
    --------
    >>> MulticastSwitch(8, "oq-crosspoint", 2).describe()
    {'architecture': 'oq-crosspoint', 'n_ports': 8, 'crosspoint_cells': 2}
    >>> MulticastSwitch(8, "iq-split").describe()
    {'architecture': 'iq-split', 'n_ports': 8}
    """

    architecture: str = "oq-crosspoint"
    crosspoint_cells: int = 4
    max_ports: ClassVar[int] = MAX_MULTICAST_PORTS

    def __post_init__(self):
        super().__post_init__()
        _check.choice("architecture", self.architecture, MULTICAST_ARCHITECTURES)
        _check.assign(self, crosspoint_cells=_check.integer("crosspoint_cells", self.crosspoint_cells, 1, 1 << 16))
        # Only oq-crosspoint has crosspoint buffers (switchq.architectures.multicast's ``applies``).
        _check.only_with("crosspoint_cells", self.crosspoint_cells, 4, self.architecture == "oq-crosspoint",
                         "architecture is oq-crosspoint")

    def describe(self) -> dict:
        out = {"architecture": self.architecture, "n_ports": self.n_ports}
        if self.architecture == "oq-crosspoint":
            out["crosspoint_cells"] = self.crosspoint_cells
        return out

    def check_traffic(self, traffic) -> None:
        """Multicast sets of uniform destinations, Bernoulli or Poisson packets (one line, before any work)."""
        traffic.check_ports(self.n_ports)
        # One destination a packet at mean fanout 1 whatever the law: a law given there would change nothing.
        _check.only_with("fanout_distribution", traffic.fanout_distribution, "fixed", traffic.fanout > 1,
                         "fanout is above 1")
        if traffic.pattern != "uniform":
            raise _check.InputError("pattern", traffic.pattern, "uniform for multicast switches")
        if traffic.arrivals == "onoff":
            raise _check.InputError("arrivals", traffic.arrivals, "bernoulli or poisson for multicast switches")
