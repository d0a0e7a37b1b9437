"""CIOQ with speedup S under uniform traffic: saturation throughput, and where it is output queuing exactly.

Saturation (uniform Bernoulli traffic, every VOQ backlogged): each of the S
phases of a slot is an independent saturated matching, so an output
receives S θ cells per slot on average, θ the saturated matching's
throughput (:func:`switchq.solvers.voq.saturation_throughput`: PIM's exact
k-iteration recursion, iSLIP's 1). It sends at most one, so the saturation
throughput is ``min(1, S θ)``: below 1 the inputs stay backlogged and each
phase stays saturated (the argument is exact for PIM, whose grants are
memoryless); at 1 the inputs drain faster than they fill and the outputs
carry the whole load. With speedup 2 and maximal matchings any admissible
traffic is carried (Dai & Prabhakar, INFOCOM 2000).

Output queuing exactly: with S = N and a maximal matching in every phase
(``iterations >= N``: each iteration adds a match while one is possible),
every input holds at most its new cell at the start of a slot, an unmatched
cell always has its output busy with another cell of the phase, so all the
cells for an output arrive in the slot they are offered. The departures are
those of ideal output queuing (:mod:`.oq`), whose mean wait is Karol et al.'s
closed form (Chuang, Goel, McKeown & Prabhakar, JSAC 1999, show that S = 2
suffices to emulate output queuing exactly with a stable-marriage matching;
that matching is not simulated here).

Examples
--------
>>> r = saturation_throughput(16, 1, "pim", 1)
>>> round(r.saturation_throughput, 4), r.exact
(0.6439, True)
>>> saturation_throughput(16, 2, "pim", 1).saturation_throughput
1.0
>>> round(mean_wait(8, 8, "islip", 8, 0.8).mean_wait, 6)
1.75
"""

from __future__ import annotations

from dataclasses import dataclass

from switchq.models import _check

from .figures import figure, given
from . import oq, voq

__all__ = ["CioqSaturation", "saturation_throughput", "mean_wait", "SOURCE"]

SOURCE = ("Dai & Prabhakar, 'The throughput of data switches with and without speedup', IEEE INFOCOM 2000; "
          "Chuang, Goel, McKeown & Prabhakar, 'Matching output queueing with a combined input/output-queued "
          "switch', IEEE JSAC 17(6), 1999")


@dataclass(frozen=True)
class CioqSaturation:
    """Saturation throughput of a CIOQ switch (cells/slot/output) and how it was obtained."""

    n_ports: int = given("ports")
    speedup: int = given("phases/slot")
    matching: str = given()
    iterations: int = given("iterations")
    saturation_throughput: float = figure("cells/slot/output", main=True)
    exact: bool = figure()
    method: str = figure()
    source: str = figure()


def saturation_throughput(n_ports, speedup, matching="islip", iterations=1) -> CioqSaturation:
    """``min(1, S θ)`` with θ the saturated VOQ matching's throughput (module docstring).

    Raises InputError naming a bad parameter (speedup in [1, N]).
    """
    phase = voq.saturation_throughput(n_ports, matching, iterations)
    s = _check.integer("speedup", speedup, 1, phase.n_ports)
    value = min(1.0, s * phase.saturation_throughput)
    exact = matching == "pim" or phase.saturation_throughput == 1.0
    return CioqSaturation(phase.n_ports, s, matching, phase.iterations, value, exact,
                          f"min(1, S theta), theta = {phase.saturation_throughput:.6g} per phase: {phase.method}",
                          f"{SOURCE}; per phase: {phase.source}")


def mean_wait(n_ports, speedup, matching, iterations, load) -> oq.OqWait:
    """Mean wait when the switch is ideal output queuing (S = N, maximal phases); InputError otherwise.

    Returns the :class:`switchq.solvers.oq.OqWait` of an N-port output-queued switch at ``load``.
    """
    n = _check.integer("n_ports", n_ports, 1)
    s = _check.integer("speedup", speedup, 1, n)
    _check.choice("matching", matching, ("pim", "islip"))
    k = _check.integer("iterations", iterations, 1, 64)
    if s < n or k < n:
        raise _check.InputError("speedup", s, f"{n} with iterations >= {n} (then the switch is output queuing "
                                              "and its mean wait exact); otherwise simulate it")
    return oq.mean_wait(n, load)
