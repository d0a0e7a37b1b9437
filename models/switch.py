"""A single switch of any architecture, and the checks every single switch shares.

Each single-switch architecture has its own frozen configuration class, in
its own module (``switchq.models.fifo``, ``.oq``, ``.voq``, ``.cicq``,
``.multicast``, ...), declared in :mod:`switchq.architectures`. This module
holds what they share:

- :class:`SingleSwitch`, their base: ``n_ports`` (inputs = outputs = N,
  checked on construction), ``describe()`` from the fields, and the unicast
  traffic check;
- :func:`check_ports` (the port-count bound) and :func:`check_unicast_traffic`,
  what a unicast switch refuses of a :class:`~switchq.models.traffic.Traffic`.

The one constructor by architecture name, which needs the declarations, is the front door's
:func:`switchq.Switch`.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from . import _check

__all__ = ["DEFAULT_ARCHITECTURE", "SingleSwitch", "check_ports", "check_unicast_traffic", "MAX_PORTS"]

# What a switch is when no architecture is named: FIFO input queues, the switch of HOL blocking (paper 000 §2.1).
DEFAULT_ARCHITECTURE = "fifo"
# The simulator keeps per-port state in dense arrays (VOQs are n_ports**2 rings);
# 1024 ports keeps one replication's state in tens of megabytes.
MAX_PORTS = 1024


def check_ports(n_ports, high: int = MAX_PORTS) -> int:
    """``n_ports`` as an int in [1, ``high``], else InputError."""
    return _check.integer("n_ports", n_ports, 1, high)


@dataclasses.dataclass(frozen=True)
class SingleSwitch:
    """An N x N single switch: what every architecture's configuration shares.

    Parameters
    ----------
    n_ports : int
        Inputs = outputs = N, in [1, ``max_ports``] (1024: the simulator keeps per-port state in dense
        arrays).

    Subclasses add their fields (with defaults) and check them in ``__post_init__`` after calling this
    one; ``describe()`` lists the architecture then every field, and ``check_traffic`` refuses what a
    unicast switch does not model.
    """

    n_ports: int
    architecture: ClassVar[str] = ""
    max_ports: ClassVar[int] = MAX_PORTS

    def __post_init__(self):
        _check.assign(self, n_ports=check_ports(self.n_ports, self.max_ports))

    def describe(self) -> dict:
        out = {"architecture": self.architecture}
        out.update({f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "architecture"})
        return out

    def check_traffic(self, traffic) -> None:
        check_unicast_traffic(self, traffic)


def check_unicast_traffic(switch, traffic, priorities: int = 1) -> None:
    """Refuse, in one line, traffic a unicast switch does not model (multicast sets, Poisson batches)."""
    traffic.check_ports(switch.n_ports)
    if traffic.arrivals == "poisson":
        raise _check.InputError("arrivals", traffic.arrivals,
                                f"bernoulli or onoff for architecture {switch.architecture} (poisson sources "
                                "are for multicast switches)")
    if traffic.fanout != 1.0:
        raise _check.InputError("fanout", traffic.fanout,
                                f"1 for architecture {switch.architecture} (a unicast switch; multicast: "
                                "switchq simulate multicast)")
    if traffic.active_inputs is not None:
        raise _check.InputError("active_inputs", traffic.active_inputs,
                                f"None for architecture {switch.architecture} (every input offers traffic)")
    if len(traffic.priority_shares) > priorities:
        raise _check.InputError("priority_shares", traffic.priority_shares,
                                f"at most {priorities} share(s) for a switch with {priorities} priority class(es)")
