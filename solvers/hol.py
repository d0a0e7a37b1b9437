"""Saturation throughput of an N x N FIFO input-queued switch (head-of-line blocking).

Karol, Hluchyj & Morgan (1987) showed that FIFO input queues lose throughput
to head-of-line (HOL) blocking: a cell waiting for a busy output holds up every
cell behind it. Under uniform traffic the saturation throughput falls from 1
(N = 1) to 3/4 (N = 2) and towards ``2 - sqrt(2) = 0.5858...`` as N grows
(their Table I). This module computes that table exactly and extends it to
any N.

Model
-----
Saturated switch: every input always has a HOL cell; each new HOL cell picks
its output uniformly at random, independently of everything else; every
output with at least one HOL cell addressed to it sends one of them (chosen at
random) and the served input's next cell becomes its HOL cell. The slot's
throughput is (outputs that sent a cell) / N.

Method
------
The state is the vector of HOL-cell counts per output (it sums to N). The
chain is symmetric under relabelling outputs, so it lumps onto the sorted
vector, i.e. a partition of N: ``p(N)`` states (p(8) = 22, p(16) = 231,
p(20) = 627). From a partition with k nonzero parts, k cells leave (one per
busy output) and k fresh cells are thrown uniformly into the N outputs. The
distribution of the next partition is counted, not enumerated: outputs with the
same number of cells left over form a group, and a dynamic programme over the
groups deals the k cells with multinomial weights, keeping only the sorted
result. Throughput is ``E[k] / N`` under the stationary distribution.

* N <= ``N_RATIONAL`` (10): exact rational stationary throughput by
  fraction-free (Bareiss) integer elimination, e.g. N = 3 gives 43/63.
* N <= ``N_EXACT`` (20): the same chain in floating point (dense numpy solve).
* N > ``N_EXACT``: ``rho(N) = (2 - sqrt 2) + a1/N + ... + a6/N**6``, the
  polynomial in 1/N through the exact limit and the exact chain at
  N = 11..16 (Richardson-style; in 1/N it interpolates between N = 16 and
  N = infinity). Error estimate: built from N <= 16 only, it reproduces the
  exact chain at N = 17..30 to within 7e-12, and differs from polynomial fits
  through the exact chain at N = 12..30 by at most 5e-11 for N up to 1000;
  we state 1e-10. Using N <= 16 keeps the first extrapolated answer near
  0.3 s.

Table I of Karol et al. gives 0.6553 for N = 4 and 0.6302 for N = 6; the
exact values are 325/496 = 0.65524... and 0.6301496..., one unit lower in
the fourth decimal (both confirmed on the chain before lumping). All other
entries agree after rounding.

Cost: building the transition matrix dominates; N = 8 takes about 2 ms
(rational), N = 16 about 0.1 s, N = 20 about 0.5 s, growing about 1.6x per
port. Results are cached per process.

References
----------
M. J. Karol, M. G. Hluchyj and S. P. Morgan, "Input versus output queueing on
a space-division packet switch", IEEE Trans. Commun. 35(12):1347-1356, 1987,
Sec. III-A and Table I.

Examples
--------
>>> [round(saturation_throughput(n).saturation_throughput, 4) for n in (1, 2, 3, 8)]
[1.0, 0.75, 0.6825, 0.6184]
>>> saturation_throughput(3).exact
'43/63'
>>> round(saturation_limit().saturation_throughput, 4)
0.5858
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from switchq.models._check import integer

from .figures import figure, given

if TYPE_CHECKING:
    import numpy as np   # imported where used: the exact answers (N <= 8 or so) need no NumPy, and start faster

__all__ = [
    "HolSaturation",
    "saturation_throughput",
    "saturation_limit",
    "limit_expression",
    "states",
    "transition_matrix",
    "stationary_distribution",
    "N_EXACT",
    "N_RATIONAL",
    "SOURCE",
]

SOURCE = ("Karol, Hluchyj & Morgan, 'Input versus output queueing on a space-division "
          "packet switch', IEEE Trans. Commun. 35(12):1347-1356, 1987, Table I")
N_RATIONAL = 10  # 42 states; Bareiss elimination takes ~35 ms (N = 12 would take ~0.25 s)
N_EXACT = 20     # 627 states; ~0.5 s, growing ~1.6x per port
# Exact values the large-N polynomial passes through: one coefficient a_j/N**j
# per port count. Checked against the exact chain up to N = 30 (module docstring).
_FIT_PORTS = range(11, 17)
# Float value of the N -> infinity limit for the fit; limit_expression() derives it
# symbolically (the tests check the two agree) but importing SymPy costs ~0.5 s.
_LIMIT = 2.0 - math.sqrt(2.0)


@dataclass(frozen=True)
class HolSaturation:
    """Saturation throughput of a FIFO input-queued switch under uniform traffic.

    Attributes
    ----------
    n_ports : int or None
        N; None for the N -> infinity limit.
    saturation_throughput : float
        Cells sent per output per slot when every input is backlogged.
    exact : str or None
        The exact value (a rational such as ``"3/4"``, or ``"2 - sqrt(2)"``),
        None when only a float is known.
    method : str
        How the value was obtained.
    states : int or None
        Size of the Markov chain solved (p(N)); None if no chain was solved.
    source : str
        Citation.
    """

    n_ports: int | None = given("ports")
    saturation_throughput: float = figure("cells/slot/output", main=True)
    exact: str | None = figure()
    method: str = figure()
    states: int | None = figure("states")
    source: str = figure()

    @property
    def value(self) -> float:
        """The figure a verdict's derivation reads (:class:`switchq.validate.verdict.Derivation`)."""
        return self.saturation_throughput

    @property
    def why(self) -> str:
        return f"{self.exact or self.saturation_throughput} by {self.method}"


def saturation_throughput(n_ports) -> HolSaturation:
    """Saturation throughput of an N x N FIFO input-queued switch, uniform traffic.

    Parameters
    ----------
    n_ports : int
        N >= 1.

    Returns
    -------
    HolSaturation
        Exact chain for N <= ``N_EXACT`` (with the exact rational for
        N <= ``N_RATIONAL``); for larger N a polynomial in 1/N through the
        exact limit, accurate to 1e-10 (see the module docstring).

    Raises
    ------
    switchq.errors.InputError
        If ``n_ports`` is not an integer >= 1.

    Examples
    --------
    >>> round(saturation_throughput(8).saturation_throughput, 4)
    0.6184
    >>> saturation_throughput(2).exact
    '3/4'
    >>> saturation_throughput(16).method
    'exact lumped Markov chain (p(16) = 231 states), floating point'
    >>> round(saturation_throughput(1000).saturation_throughput, 5)
    0.58603
    """
    return _saturation(integer("n_ports", n_ports, 1, None))


@lru_cache(maxsize=1024)  # bounded: callers may sweep arbitrarily many large N
def _saturation(n: int) -> HolSaturation:
    if n <= N_RATIONAL:
        rho = _rational_throughput(n)
        return HolSaturation(n, float(rho), str(rho),
                             f"exact lumped Markov chain (p({n}) = {_count(n)} states), "
                             "rational arithmetic", _count(n), SOURCE)
    if n <= N_EXACT:
        return HolSaturation(n, _float_throughput(n), None,
                             f"exact lumped Markov chain (p({n}) = {_count(n)} states), "
                             "floating point", _count(n), SOURCE)
    x = float(Fraction(1, n))  # not 1 / n: that overflows for n > ~1e308
    rho = _LIMIT + sum(a * x ** (j + 1) for j, a in enumerate(_fit_coefficients()))
    return HolSaturation(n, rho, None,
                         f"extrapolation in 1/N: degree-{len(_FIT_PORTS)} polynomial through the "
                         f"exact chain at N = {_FIT_PORTS[0]}..{_FIT_PORTS[-1]} and the limit "
                         "2 - sqrt(2) (error < 1e-10)", None, SOURCE)


def limit_expression():
    """The N -> infinity saturation throughput as a SymPy expression.

    Karol et al. (Sec. III-A): as N -> infinity the HOL cells newly addressed
    to one output each slot become Poisson with mean rho0, so the blocked HOL
    cells waiting for that output form a discrete-time M/D/1 queue with mean
    ``rho0**2 / (2 (1 - rho0))``. All N - N rho0 HOL cells not sent in a slot
    are blocked, so that mean is also ``1 - rho0`` per output. Of the two
    roots, the throughput is the one in (0, 1).

    Examples
    --------
    >>> limit_expression()
    2 - sqrt(2)
    """
    return _limit_expression()


@lru_cache(maxsize=None)
def _limit_expression():
    import sympy as sp

    rho0 = sp.symbols("rho0", positive=True)
    condition = sp.Eq(rho0**2 / (2 * (1 - rho0)), 1 - rho0)
    (root,) = [r for r in sp.solve(condition, rho0) if 0 < r < 1]
    return root


def saturation_limit() -> HolSaturation:
    """Saturation throughput as N -> infinity, ``2 - sqrt(2)`` (``n_ports`` is None).

    Examples
    --------
    >>> saturation_limit().exact
    '2 - sqrt(2)'
    """
    expr = limit_expression()
    return HolSaturation(None, float(expr), str(expr),
                         "closed form, N -> infinity (Poisson limit, Karol et al. Sec. III-A)",
                         None, SOURCE)


def states(n_ports) -> list[tuple[int, ...]]:
    """States of the lumped chain: partitions of N = ``n_ports`` in [1, ``N_EXACT``], largest parts first.

    A state lists the nonzero numbers of HOL cells per output, sorted
    decreasingly (outputs with no HOL cell are left out).

    Examples
    --------
    >>> states(4)
    [(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)]
    """
    return list(_states(integer("n_ports", n_ports, 1, N_EXACT)))


def transition_matrix(n_ports) -> np.ndarray:
    """One-slot transition matrix of the lumped chain of N = ``n_ports`` in [1, ``N_EXACT``], rows and
    columns in ``states`` order.

    Examples
    --------
    >>> transition_matrix(2)
    array([[0.5, 0.5],
           [0.5, 0.5]])
    """
    import numpy as np

    n = integer("n_ports", n_ports, 1, N_EXACT)
    index = {s: i for i, s in enumerate(_states(n))}
    matrix = np.zeros((len(index), len(index)))
    for s, i in index.items():
        total = n ** len(s)  # the len(s) departing cells each pick one of n outputs
        for t, ways in _transition_counts(s, n).items():
            matrix[i, index[t]] = ways / total
    return matrix


def stationary_distribution(n_ports) -> np.ndarray:
    """Stationary distribution of the lumped chain of N = ``n_ports`` in [1, ``N_EXACT``], in ``states`` order
    (floating point).

    Examples
    --------
    >>> stationary_distribution(2)
    array([0.5, 0.5])
    """
    from .markov import stationary_dense

    return stationary_dense(transition_matrix(n_ports))


@lru_cache(maxsize=None)
def _float_throughput(n: int) -> float:
    pi = stationary_distribution(n)
    return float(sum(q * len(s) for q, s in zip(pi, _states(n)))) / n


@lru_cache(maxsize=None)
def _rational_throughput(n: int) -> Fraction:
    # Balance equations sum_i pi_i c_ij / n**k_i = pi_j with integer counts c_ij.
    # Writing pi_i = n**k_i y_i clears every denominator, so Bareiss elimination
    # stays in integers and only the back substitution needs fractions.
    st = _states(n)
    index = {s: i for i, s in enumerate(st)}
    scale = [n ** len(s) for s in st]
    m = len(st)
    rows = [[0] * (m + 1) for _ in range(m)]
    for i, s in enumerate(st):
        for t, ways in _transition_counts(s, n).items():
            rows[index[t]][i] += ways
    for j in range(m):
        rows[j][j] -= scale[j]
    rows[-1] = scale + [1]  # normalisation replaces the redundant last balance equation
    previous = 1
    for k in range(m):
        if rows[k][k] == 0:
            swap = next(r for r in range(k + 1, m) if rows[r][k])
            rows[k], rows[swap] = rows[swap], rows[k]
        pivot_row, pivot = rows[k], rows[k][k]
        for row in rows[k + 1:]:
            factor, row[k] = row[k], 0
            for j in range(k + 1, m + 1):
                row[j] = (row[j] * pivot - factor * pivot_row[j]) // previous  # exact
        previous = pivot
    y = [Fraction(0)] * m
    for i in range(m - 1, -1, -1):
        rest = sum((rows[i][j] * y[j] for j in range(i + 1, m)), Fraction(0))
        y[i] = (rows[i][m] - rest) / rows[i][i]
    return sum((y[i] * scale[i] * len(s) for i, s in enumerate(st)), Fraction(0)) / n


@lru_cache(maxsize=None)
def _fit_coefficients() -> tuple[float, ...]:
    import numpy as np

    ns = np.array(_FIT_PORTS, dtype=float)
    excess = np.array([_float_throughput(n) for n in _FIT_PORTS]) - _LIMIT
    powers = np.column_stack([ns ** -(j + 1) for j in range(len(ns))])
    return tuple(float(c) for c in np.linalg.solve(powers, excess))


@lru_cache(maxsize=None)
def _states(n: int) -> tuple[tuple[int, ...], ...]:
    return tuple(_partitions(n, n))


def _count(n: int) -> int:
    return len(_states(n))


def _partitions(n: int, largest: int):
    """Partitions of n with parts <= largest, in reverse lexicographic order."""
    if n == 0:
        yield ()
        return
    for first in range(min(n, largest), 0, -1):
        for rest in _partitions(n - first, first):
            yield (first,) + rest


def _transition_counts(state: tuple[int, ...], n: int) -> dict[tuple[int, ...], int]:
    """Next partition -> number of the n**k equally likely destination choices leading to it."""
    k = len(state)
    left_over = Counter(c - 1 for c in state)  # each busy output sends one cell
    left_over[0] += n - k
    # Deal the k new cells group by group. The largest group goes last and simply
    # takes whatever is left, which saves the widest loop of the programme.
    groups = sorted(left_over.items(), key=lambda g: g[1])
    dealt = {(0, ()): 1}  # (cells dealt so far, sorted nonzero counts so far) -> ways
    for g, (value, size) in enumerate(groups):
        last = g == len(groups) - 1
        step: dict[tuple[int, tuple[int, ...]], int] = {}
        for (used, parts), ways in dealt.items():
            remaining = k - used
            for j in ((remaining,) if last else range(remaining + 1)):
                chosen = ways * math.comb(remaining, j)  # which of the cells go here
                for counts, spreads in _spreads(value, size, j):
                    key = (used + j, tuple(sorted(parts + counts, reverse=True)))
                    step[key] = step.get(key, 0) + chosen * spreads
        dealt = step
    return {parts: ways for (_, parts), ways in dealt.items()}


@lru_cache(maxsize=None)
def _spreads(value: int, size: int, cells: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Ways ``cells`` labelled cells land in ``size`` outputs that each hold ``value``.

    Grouped by the resulting sorted nonzero counts: each entry is
    (counts, output labellings x cell assignments giving them).
    """
    out = []
    for added in _partitions(cells, cells):
        if len(added) > size:
            continue
        repeats = Counter(added)
        repeats[0] = size - len(added)
        labellings = math.factorial(size)
        for r in repeats.values():
            labellings //= math.factorial(r)
        assignments = math.factorial(cells)
        for a in added:
            assignments //= math.factorial(a)
        if value:
            counts = tuple(value + a for a in added) + (value,) * (size - len(added))
        else:
            counts = added  # outputs left empty are not part of the state
        out.append((counts, labellings * assignments))
    return tuple(out)
