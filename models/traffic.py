"""Offered traffic: load per input, arrival process and destination pattern.

Arrival processes
-----------------
``bernoulli``
    A cell arrives at each input in each slot with probability ``load``
    (Karol, Hluchyj & Morgan 1987).
``onoff``
    Bursty two-state source: bursts of geometric length with mean
    ``mean_burst`` cells, one cell per slot, all to one destination; idle
    periods geometric with mean ``mean_burst * (1 - load) / load`` slots, so the
    long-run rate is ``load`` (the bursty model of paper 002 §5).
``poisson``
    A Poisson number of packets, mean ``load``, arrives at each input in
    each slot: the slotted view of paper 003 §3.1's Poisson sources
    (multicast switches only).

Bursts (or single cells) belong to priority p with probability
``priority_shares[p]``; priority 0 is the highest (paper 002 §5, Fig. 5).

Multicast (paper 003 §3.1): a packet goes to a set of ``fanout`` outputs on
average; the set's size follows ``fanout_distribution`` (``fixed``: exactly
F; ``binomial``: every output independently, conditioned on at least one;
``uniform``: a size uniform on 1..2F-1) and, given its size, the set is
uniform. Only ``active_inputs`` inputs (default all) offer traffic, as in the
paper's 2 x 8 experiments.

Destination patterns (paper 000 §5.5, paper 003 §4)
---------------------------------------------------
``uniform``       every output with probability 1/N (the input's own index included).
``transpose``     the two halves of the port index's bits swapped (N = 4, 16, 64, ...).
``bitrev``        the port index's bits reversed (N a power of two).
``complement``    every bit of the port index inverted (N a power of two).
``hotspot``       ``hotspot_fraction`` of the cells to ``hotspot_port``, the rest uniform.
``unbalanced``    Rojas-Cessa's model: output i with probability w + (1 - w)/N from
                  input i, every other output (1 - w)/N; w = 0 is uniform, w = 1 a
                  permutation (paper 002 §5).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _check

__all__ = ["Traffic", "PATTERNS", "ARRIVALS", "PERMUTATIONS", "FANOUT_DISTRIBUTIONS"]

PATTERNS = ("uniform", "transpose", "bitrev", "complement", "hotspot", "unbalanced")
PERMUTATIONS = ("transpose", "bitrev", "complement")
ARRIVALS = ("bernoulli", "onoff", "poisson")
FANOUT_DISTRIBUTIONS = ("fixed", "binomial", "uniform")


@dataclass(frozen=True)
class Traffic:
    """Traffic offered to every input of a switch, validated on construction.

    Examples
    --------
    >>> t = Traffic(load=0.5, pattern="complement")
    >>> t.permutation(8).tolist()
    [7, 6, 5, 4, 3, 2, 1, 0]
    >>> Traffic(load=1.5)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: load: got 1.5; allowed: a number in [0.0, 1.0]
    """

    load: float
    pattern: str = "uniform"
    arrivals: str = "bernoulli"
    mean_burst: float = 1.0
    unbalanced_w: float = 0.0
    hotspot_fraction: float = 0.0
    hotspot_port: int = 0
    priority_shares: tuple = (1.0,)
    fanout: float = 1.0
    fanout_distribution: str = "fixed"
    active_inputs: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "load", _check.real("load", self.load, 0.0, 1.0))
        _check.choice("pattern", self.pattern, PATTERNS)
        _check.choice("arrivals", self.arrivals, ARRIVALS)
        object.__setattr__(self, "mean_burst",
                           _check.real("mean_burst", self.mean_burst, 1.0, 1e6))
        if self.arrivals != "onoff" and self.mean_burst != 1.0:
            raise _check.InputError("mean_burst", self.mean_burst,
                                    "1 unless arrivals is onoff")
        object.__setattr__(self, "unbalanced_w",
                           _check.real("unbalanced_w", self.unbalanced_w, 0.0, 1.0))
        object.__setattr__(self, "hotspot_fraction",
                           _check.real("hotspot_fraction", self.hotspot_fraction, 0.0, 1.0))
        object.__setattr__(self, "hotspot_port",
                           _check.integer("hotspot_port", self.hotspot_port, 0))
        # Read by their pattern only: elsewhere a value would be silently ignored.
        _check.only_with("unbalanced_w", self.unbalanced_w, 0.0, self.pattern == "unbalanced", "pattern is unbalanced")
        _check.only_with("hotspot_fraction", self.hotspot_fraction, 0.0, self.pattern == "hotspot",
                         "pattern is hotspot")
        _check.only_with("hotspot_port", self.hotspot_port, 0, self.pattern == "hotspot", "pattern is hotspot")
        shares = tuple(_check.real("priority_shares", s, 0.0, 1.0) for s in self.priority_shares)
        if not 1 <= len(shares) <= 4 or abs(sum(shares) - 1.0) > 1e-9:
            raise _check.InputError("priority_shares", self.priority_shares,
                                    "1 to 4 shares in [0, 1] summing to 1 (share of bursts per priority, 0 highest)")
        object.__setattr__(self, "priority_shares", shares)
        object.__setattr__(self, "fanout", _check.real("fanout", self.fanout, 1.0, 64.0))
        _check.choice("fanout_distribution", self.fanout_distribution, FANOUT_DISTRIBUTIONS)
        # A set-size law at fanout 1 changes nothing: every packet goes to one output.
        _check.only_with("fanout_distribution", self.fanout_distribution, "fixed", self.fanout > 1,
                         "fanout is above 1")
        if self.fanout_distribution in ("fixed", "uniform") and not float(self.fanout).is_integer():
            raise _check.InputError("fanout", self.fanout,
                                    f"a whole number for fanout_distribution {self.fanout_distribution}")
        if self.active_inputs is not None:
            object.__setattr__(self, "active_inputs", _check.integer("active_inputs", self.active_inputs, 1))

    def describe(self) -> dict:
        """The fields that matter for this pattern and arrival process."""
        out = {"load": self.load, "pattern": self.pattern, "arrivals": self.arrivals}
        if self.arrivals == "onoff":
            out["mean_burst"] = self.mean_burst
        if self.pattern == "unbalanced":
            out["unbalanced_w"] = self.unbalanced_w
        if self.pattern == "hotspot":
            out.update(hotspot_fraction=self.hotspot_fraction, hotspot_port=self.hotspot_port)
        if len(self.priority_shares) > 1:
            out["priority_shares"] = list(self.priority_shares)
        if self.fanout != 1.0:
            out.update(fanout=self.fanout, fanout_distribution=self.fanout_distribution)
        if self.active_inputs is not None:
            out["active_inputs"] = self.active_inputs
        return out

    def check_ports(self, n_ports: int) -> None:
        """Raise InputError if this pattern cannot be laid on an ``n_ports`` switch."""
        if self.pattern in PERMUTATIONS:
            bits = n_ports.bit_length() - 1
            if n_ports < 2 or (1 << bits) != n_ports:
                raise _check.InputError("n_ports", n_ports,
                                        f"a power of two >= 2 for pattern {self.pattern}")
            if self.pattern == "transpose" and bits % 2:
                raise _check.InputError("n_ports", n_ports,
                                        "an even power of two (4, 16, 64, ...) for pattern transpose")
        if self.active_inputs is not None and self.active_inputs > n_ports:
            raise _check.InputError("active_inputs", self.active_inputs, f"an integer in [1, {n_ports}]")
        top = {"fixed": n_ports, "binomial": n_ports, "uniform": (n_ports + 1) / 2}[self.fanout_distribution]
        if self.fanout > top:
            raise _check.InputError("fanout", self.fanout, f"a mean fanout in [1, {top:g}] for {n_ports} outputs "
                                    f"and fanout_distribution {self.fanout_distribution}")
        if self.pattern == "hotspot" and self.hotspot_port >= n_ports:
            raise _check.InputError("hotspot_port", self.hotspot_port,
                                    f"an integer in [0, {n_ports - 1}]")

    def permutation(self, n_ports: int):
        """Destination of each input under a permutation pattern (a NumPy array)."""
        import numpy as np  # lazily: the CLI's analytic paths never need it

        self.check_ports(n_ports)
        src = np.arange(n_ports)
        bits = n_ports.bit_length() - 1
        if self.pattern == "complement":
            return (n_ports - 1) ^ src
        if self.pattern == "bitrev":
            return np.array([int(format(s, f"0{bits}b")[::-1], 2) for s in src])
        if self.pattern == "transpose":
            half = bits // 2
            low = (1 << half) - 1
            return ((src & low) << half) | (src >> half)
        raise _check.InputError("pattern", self.pattern, "one of " + ", ".join(PERMUTATIONS))

    def destination_matrix(self, n_ports: int):
        """P[i, j]: probability that a cell from input i is for output j (rows sum to 1; a NumPy array)."""
        import numpy as np

        self.check_ports(n_ports)
        n = n_ports
        if self.pattern in PERMUTATIONS:
            p = np.zeros((n, n))
            p[np.arange(n), self.permutation(n)] = 1.0
            return p
        p = np.full((n, n), 1.0 / n)
        if self.pattern == "hotspot":
            p *= 1.0 - self.hotspot_fraction
            p[:, self.hotspot_port] += self.hotspot_fraction
        elif self.pattern == "unbalanced":
            p *= 1.0 - self.unbalanced_w
            p[np.arange(n), np.arange(n)] += self.unbalanced_w
        return p

    def output_loads(self, n_ports: int):
        """Offered load at each output in cells per slot (column sums of load * P)."""
        return self.load * self.destination_matrix(n_ports).sum(axis=0)
