"""One round of paper 003's NAMD-like multicast benchmark (§4), as traffic on a fat-tree network.

Its own module, not :mod:`switchq.models.collective`: the network checks a round against its nodes
(:meth:`~switchq.models.network.FatTreeNetwork.check_traffic`) and the reduction is built on the
network, so a round kept beside the reduction made the two modules import each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _check
from .traffic import FANOUT_DISTRIBUTIONS

__all__ = ["NamdRound", "MULTICAST_MODES"]

# hardware: the switches replicate; software: the NIC sends one point-to-point message per destination.
MULTICAST_MODES = ("hardware", "software")


@dataclass(frozen=True)
class NamdRound:
    """One round of paper 003's NAMD-like benchmark (§4): ``senders`` nodes multicast ``message_bytes``.

    Each sender multicasts to a random set of other nodes (size from the fanout
    law, uniform given its size), with ``hardware`` multicast (the switches
    replicate along the spanning tree) or ``software`` (one point-to-point
    message per destination). The paper's round has P/16 senders and mean
    fanout 16.

    Examples
    --------
    >>> NamdRound(1024, "software", senders=16).describe()["multicast"]
    'software'
    """

    message_bytes: int
    multicast: str = "hardware"
    senders: int = 16
    fanout: float = 16.0
    fanout_distribution: str = "uniform"

    def __post_init__(self):
        object.__setattr__(self, "message_bytes", _check.integer("message_bytes", self.message_bytes, 1, 1 << 24))
        _check.choice("multicast", self.multicast, MULTICAST_MODES)
        object.__setattr__(self, "senders", _check.integer("senders", self.senders, 1))
        _check.choice("fanout_distribution", self.fanout_distribution, FANOUT_DISTRIBUTIONS)
        object.__setattr__(self, "fanout", _check.real("fanout", self.fanout, 1.0, 1 << 20))

    def check_nodes(self, nodes: int) -> None:
        """Senders and mean fanout that fit ``nodes`` nodes (one line if not)."""
        _check.integer("senders", self.senders, 1, nodes)
        top = {"fixed": nodes - 1, "binomial": nodes - 1, "uniform": nodes / 2}[self.fanout_distribution]
        _check.real("fanout", self.fanout, 1.0, top)

    def describe(self) -> dict:
        return {"message_bytes": self.message_bytes, "multicast": self.multicast, "senders": self.senders,
                "fanout": self.fanout, "fanout_distribution": self.fanout_distribution}
