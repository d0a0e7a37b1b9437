"""The multicast fanout laws, as the traffic describes them (paper 003 §3.1).

A packet's destination set is a size drawn from :func:`fanout_pmf`, then a
uniform subset of that size: ``fixed`` |D| = F; ``binomial`` each output
with probability q, conditioned on D non-empty, q solving
``N q / (1 - (1 - q)**N) = F`` (:func:`binomial_probability`; given its
size such a set is uniform); ``uniform`` |D| uniform on 1..2F-1. The
law is part of the workload's description, so it lives here: the solvers
(:mod:`switchq.solvers.multicast`) integrate over it and the simulators
draw from it, and neither reads the other.

Examples
--------
>>> fanout_pmf(4, 2, "uniform").round(4).tolist()
[0.0, 0.3333, 0.3333, 0.3333, 0.0]
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from functools import lru_cache

import numpy as np

from . import _check
from .traffic import FANOUT_DISTRIBUTIONS

__all__ = ["DISTRIBUTIONS", "MAX_OUTPUTS", "fanout_pmf", "fanout_cdf", "fanout_law", "binomial_probability",
           "check_fanout"]

DISTRIBUTIONS = FANOUT_DISTRIBUTIONS   # the laws Traffic accepts: fixed, binomial, uniform
MAX_OUTPUTS = 1024  # pmfs and bounds only; the solvers' chains stop far below (IQ_EXACT_OUTPUTS, OQ_EXACT)


def check_fanout(n_outputs, fanout, distribution) -> tuple[int, float, str]:
    n = _check.integer("n_outputs", n_outputs, 1, MAX_OUTPUTS)
    _check.choice("distribution", distribution, DISTRIBUTIONS)
    if distribution == "binomial":
        return n, _check.real("fanout", fanout, 1.0, float(n)), distribution
    top = n if distribution == "fixed" else (n + 1) // 2  # uniform: 2F - 1 <= N
    allowed = f"a whole number in [1, {top}] for distribution {distribution} and {n} outputs"
    whole = (isinstance(fanout, numbers.Real) and not isinstance(fanout, bool)
             and math.isfinite(fanout) and float(fanout).is_integer())
    if not whole or not 1 <= fanout <= top:
        raise _check.InputError("fanout", fanout, allowed)
    return n, float(fanout), distribution


def binomial_probability(n_outputs, fanout) -> float:
    """Per-output probability q of the ``binomial`` fanout law with conditional mean F.

    Solves ``N q / (1 - (1 - q)**N) = F`` (the mean of a Binomial(N, q) set
    conditioned on being non-empty), increasing in q from 1 (q -> 0) to N
    (q = 1), by bisection to machine precision.

    Parameters
    ----------
    n_outputs : int
        N >= 1.
    fanout : float
        F in [1, N].

    Returns
    -------
    float
        q in [0, 1]; 0 for F = 1 (the law is then one output, the q -> 0 limit).

    Examples
    --------
    >>> binomial_probability(8, 8)
    1.0
    >>> q = binomial_probability(8, 4)
    >>> round(8 * q / (1 - (1 - q) ** 8), 12)
    4.0
    """
    n, f, _ = check_fanout(n_outputs, fanout, "binomial")
    return _binomial_q(n, f)


@lru_cache(maxsize=1024)
def _binomial_q(n: int, f: float) -> float:
    if f <= 1.0:
        return 0.0
    if f >= n:
        return 1.0

    def mean(q):  # -expm1(n log1p(-q)) = 1 - (1-q)**n without cancellation for small q
        return n * q / -math.expm1(n * math.log1p(-q))

    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if mean(mid) < f:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def fanout_pmf(n_outputs, fanout, distribution="fixed") -> np.ndarray:
    """P(|D| = k) for k = 0..N: the size law of a packet's destination set.

    Given its size, a destination set is uniform among the C(N, k) subsets
    (for all three laws), so a simulator draws the size from this pmf and then
    a uniform subset.

    Parameters
    ----------
    n_outputs : int
        N in [1, 1024].
    fanout : float
        Mean fanout F: a whole number in [1, N] (``fixed``), [1, (N+1)/2]
        (``uniform``), any real in [1, N] (``binomial``).
    distribution : {"fixed", "binomial", "uniform"}

    Returns
    -------
    numpy.ndarray
        Length N + 1, entry 0 is 0, sums to 1, mean F.

    Raises
    ------
    switchq.errors.InputError
        Naming the bad parameter.

    Examples
    --------
    >>> fanout_pmf(4, 2)
    array([0., 0., 1., 0., 0.])
    >>> p = fanout_pmf(8, 4, "binomial")
    >>> round(float(p @ range(9)), 12), round(float(p.sum()), 12)
    (4.0, 1.0)
    """
    n, f, dist = check_fanout(n_outputs, fanout, distribution)
    return np.array([float(x) for x in fanout_law(n, f, dist)])


def fanout_cdf(n_outputs, fanout, distribution="fixed") -> np.ndarray:
    """Cumulative ``fanout_pmf`` with the last entry exactly 1, for inverse-CDF sampling.

    A simulator draws ``k = searchsorted(cdf, u, side="right")`` with u uniform
    on [0, 1) and then a uniform k-subset of the outputs.

    Examples
    --------
    >>> fanout_cdf(3, 2, "uniform")
    array([0.        , 0.33333333, 0.66666667, 1.        ])
    """
    # Rounding must neither leave a gap above the last size nor overshoot 1 before it (the cumulative sum
    # of 57 terms of 1/57 reaches 1 + 1.6e-15 one size early): clip, then close.
    cdf = np.minimum(np.cumsum(fanout_pmf(n_outputs, fanout, distribution)), 1.0)
    cdf[-1] = 1.0
    return cdf


@lru_cache(maxsize=256)
def fanout_law(n: int, f: float, dist: str) -> tuple:
    """The size law as Fractions (fixed, uniform) or floats (binomial), k = 0..n (exact where it can be)."""
    if dist == "fixed":
        return tuple(Fraction(int(k == int(f))) for k in range(n + 1))
    if dist == "uniform":
        top = 2 * int(f) - 1
        return tuple(Fraction(1, top) if 1 <= k <= top else Fraction(0) for k in range(n + 1))
    q = _binomial_q(n, f)
    if q == 0.0:
        return tuple(float(k == 1) for k in range(n + 1))
    if q == 1.0:
        return tuple(float(k == n) for k in range(n + 1))
    log_norm = math.log(-math.expm1(n * math.log1p(-q)))
    out = [0.0]
    for k in range(1, n + 1):
        log_p = (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                 + k * math.log(q) + (n - k) * math.log1p(-q) - log_norm)
        out.append(math.exp(log_p))
    total = math.fsum(out)
    return tuple(x / total for x in out)  # renormalise the last-ulp rounding of the logs
