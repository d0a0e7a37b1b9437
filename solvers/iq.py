"""FIFO input queuing: mean waiting time below saturation, N -> infinity approximation.

What is modelled
----------------
An N x N switch with one FIFO queue per input, Bernoulli arrivals of load ``p``
per input and uniformly random destinations. In every slot each output picks
one of the head-of-line (HOL) cells addressed to it uniformly at random; the
others stay blocked at the head of their queues (HOL blocking). A cell that
arrives at an empty queue contends in its arrival slot. The *wait* of a cell is
the number of slots before its transmission slot (0 if it is sent in the slot
it arrives), matching :mod:`switchq.solvers.oq`; *latency* is wait + 1.

Model (Karol, Hluchyj & Morgan 1987, input-queuing analysis, mean waiting time;
also Hui & Arthurs 1987), exact only as N -> infinity:

* Each input queue is a discrete-time Geo/G/1 queue whose "service time" S is
  the number of slots its HOL cell spends at the head of the line, counting the
  slot in which it is sent (S >= 1).
* The HOL cells addressed to one output form a *virtual queue*: new HOL cells
  join it as a Poisson(p) batch per slot (N -> inf), it sends one cell per slot,
  and the cell sent is chosen at random among those present (random order of
  service, ROS). Its content evolves as B_m = max(0, B_{m-1} - 1) + A_m,
  the discrete M/D/1 queue.

Formulas
--------
Input queue (discrete Geo/G/1, early arrivals), Karol et al. (1987):

.. math:: \\overline{W} = \\frac{p\\,E[S(S-1)]}{2\\,(1 - p\\,E[S])} + E[S] - 1.

Virtual queue moments (this module's exact solution of the ROS virtual queue
above). Let X be the number of *other* cells in the virtual queue with a tagged
cell in a slot; it is sent with probability 1/(X+1), else X -> X - 1 + A with
A ~ Poisson(p). Solving E[S | X=x] and E[S^2 | X=x] (they are polynomials in x:
E[S | x] = 1 + x/(2-p), E[S^2 | x] = 1 + beta x + gamma x^2 with
gamma = 2/((2-p)(3-2p))) and averaging over the X seen on arrival (cells left
from the previous slot of the stationary discrete M/D/1 queue, E[R] =
p^2/(2(1-p)), E[R^2] = p^2 (p^2 - p + 3)/(6 (1-p)^2), plus Poisson(p) cells
arriving in the same slot) gives

.. math::
    E[S] = \\frac{2-p}{2(1-p)} = 1 + \\frac{p}{2(1-p)}, \\qquad
    E[S^2] = \\frac{12 - 12p + 7p^2 - p^3}{6\\,(2-p)\\,(1-p)^2},

and therefore

.. math::
    \\overline{W} = \\frac{p\\,(12 - 18p + 10p^2 - p^3)}
                         {6\\,(2-p)\\,(1-p)\\,(p^2 - 4p + 2)}
               = \\frac{p}{2} + p^2 + \\frac{23}{12}p^3 + O(p^4).

E[S] is the FIFO M/D/1 value (the mean does not depend on the service order);
only E[S^2] carries the random order. The denominator p^2 - 4p + 2 vanishes at
p = 2 - sqrt(2) ~ 0.5858 (where p E[S] = 1), Karol's saturation throughput for
N -> inf. At light load a cell meets one other new HOL cell for its output
with probability ~p and loses the draw half the time, so W ~ p/2, the same
slope as output queuing; input queuing is worse from the p^2 term on
(W_in - W_out = p^2/2 + O(p^3) against output queuing's p/(2(1-p))).

Accuracy
--------
This is the N -> infinity answer. Finite-N switches saturate later
(0.6184 at N = 8, about 0.60 at N = 16) and wait less; a pure-Python simulation
of the FIFO switch (one run of 2e5 slots each, a few per cent statistical
error) gave W = 0.318 / 0.334 / 0.343 at p = 0.3 for N = 16 / 32 / 64
(formula 0.353) and 1.86 / 2.10 / 2.24 / 2.32 at p = 0.5 for
N = 16 / 32 / 64 / 128 (formula 2.39): the gap closes roughly like 1/N. Use it
for N >= ~16 and expect it to overestimate, increasingly near saturation.

References
----------
M. J. Karol, M. G. Hluchyj and S. P. Morgan, "Input versus output queueing on
a space-division packet switch", IEEE Trans. Commun. 35(12):1347-1356, 1987
(input queuing: saturation 2 - sqrt(2) and mean waiting time for N -> inf).
J. Y. Hui and E. Arthurs, "A broadband packet switch for integrated
transport", IEEE J. Sel. Areas Commun. 5(8):1264-1273, 1987.

Examples
--------
>>> round(mean_wait(0.5).mean_wait, 6)
2.388889
>>> r = mean_wait(0.3, n_ports=32)
>>> round(r.mean_wait, 4), round(r.mean_latency, 4), r.n_ports
(0.3528, 1.3528, 32)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from switchq.errors import InputError
from switchq.models import _check

from .figures import figure, given

__all__ = [
    "IqWait",
    "mean_wait",
    "mean_wait_expression",
    "hol_moments",
    "SATURATION_LOAD",
    "SOURCE",
]

#: Saturation throughput of FIFO input queuing as N -> infinity (Karol et al. 1987).
SATURATION_LOAD = 2.0 - math.sqrt(2.0)

SOURCE = ("Karol, Hluchyj & Morgan, 'Input versus output queueing on a space-division "
          "packet switch', IEEE Trans. Commun. 35(12):1347-1356, 1987 (input queuing, "
          "mean waiting time, N -> inf); Hui & Arthurs, IEEE JSAC 5(8), 1987")

FORMULA = ("W = p E[S(S-1)] / (2 (1 - p E[S])) + E[S] - 1, "
           "E[S] = (2-p)/(2(1-p)), E[S^2] = (12 - 12p + 7p^2 - p^3)/(6 (2-p)(1-p)^2) "
           "[HOL time S from the random-order discrete M/D/1 virtual queue]; "
           "= p (12 - 18p + 10p^2 - p^3) / (6 (2-p)(1-p)(p^2 - 4p + 2))")

NOTE = ("N -> infinity approximation (Poisson HOL arrivals per output); accurate for "
        "N >= ~16, it overestimates the wait of a finite switch, increasingly near "
        "saturation")

_ALLOWED = ("a number in [0, 0.5858) (FIFO input queuing saturates at 2 - sqrt(2) "
            "for large N)")


@dataclass(frozen=True)
class IqWait:
    """Mean wait of FIFO input queuing below saturation (N -> infinity).

    Attributes
    ----------
    load : float
        p, cells per slot per input, in [0, 2 - sqrt(2)).
    n_ports : int or None
        N as given; the value does not depend on it (N -> inf model).
    mean_wait : float
        Mean slots a cell waits before its transmission slot.
    mean_latency : float
        mean_wait + 1.
    hol_mean : float
        E[S], mean slots a cell spends at the head of the line (>= 1).
    hol_second_moment : float
        E[S^2].
    formula, source, note : str
    """

    load: float = given("cells/slot/input")
    n_ports: int | None = given("ports")
    mean_wait: float = figure("slots", main=True)
    mean_latency: float = figure("slots")
    hol_mean: float = figure("slots")
    hol_second_moment: float = figure("slots^2")
    formula: str = figure()
    source: str = figure()
    note: str = figure()


def _check_load(load) -> float:
    try:
        return _check.real("load", load, 0, SATURATION_LOAD, high_open=True)
    except InputError as err:
        raise InputError("load", err.value, _ALLOWED) from None


def hol_moments(load: float) -> tuple[float, float]:
    """E[S] and E[S^2] of the head-of-line time S (slots, S >= 1), N -> infinity.

    Examples
    --------
    >>> hol_moments(0.5)
    (1.5, 3.388888888888889)
    """
    p = _check_load(load)
    es = (2.0 - p) / (2.0 * (1.0 - p))
    es2 = (12.0 - 12.0 * p + 7.0 * p * p - p ** 3) / (6.0 * (2.0 - p) * (1.0 - p) ** 2)
    return es, es2


def mean_wait(load: float, n_ports: int | None = None) -> IqWait:
    """Mean waiting time of FIFO input queuing below saturation (Karol et al. 1987).

    Parameters
    ----------
    load : float
        p in [0, 2 - sqrt(2)).
    n_ports : int or None
        N >= 1, recorded only: the answer is the N -> infinity approximation.

    Returns
    -------
    IqWait

    Raises
    ------
    InputError
        load outside [0, 2 - sqrt(2)); n_ports not an integer >= 1 (or None).

    Examples
    --------
    >>> mean_wait(0.0).mean_wait
    0.0
    >>> round(mean_wait(0.55).mean_wait, 3)
    6.796
    >>> mean_wait(0.6)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: load: got 0.6; allowed: a number in [0, 0.5858) (FIFO input queuing saturates at 2 - sqrt(2) for large N)
    """
    p = _check_load(load)
    n = None if n_ports is None else _check.integer("n_ports", n_ports, 1)
    es, es2 = hol_moments(p)
    w = p * (es2 - es) / (2.0 * (1.0 - p * es)) + es - 1.0
    return IqWait(load=p, n_ports=n, mean_wait=w, mean_latency=w + 1.0, hol_mean=es,
                  hol_second_moment=es2, formula=FORMULA, source=SOURCE, note=NOTE)


def mean_wait_expression():
    """The mean wait as a SymPy expression in the symbol ``p`` (SymPy imported lazily).

    Examples
    --------
    >>> import sympy
    >>> e = mean_wait_expression()
    >>> (p,) = e.free_symbols
    >>> sympy.series(e, p, 0, 3).removeO() - (p / 2 + p**2)
    0
    >>> sympy.simplify(sympy.denom(sympy.factor(e)).subs(p, 2 - sympy.sqrt(2)))
    0
    """
    import sympy

    p = sympy.Symbol("p", nonnegative=True)
    es = (2 - p) / (2 * (1 - p))
    es2 = (12 - 12 * p + 7 * p ** 2 - p ** 3) / (6 * (2 - p) * (1 - p) ** 2)
    return p * (es2 - es) / (2 * (1 - p * es)) + es - 1
