"""The iq-split independence approximation of multicast saturation (N -> infinity; paper 003 §3.1).

Karol et al.'s N -> infinity argument, extended to multicast: an output's
waiting copies form a random-order discrete M/D/1 queue with Poisson
arrivals of mean ``load M E|D| / N``; a packet's copies see independent
queues, so it holds the head for the maximum of |D| independent sojourn
times, and ``load E[max] = 1`` at saturation. For F = 1 it is 2 - sqrt(2).
Low at finite N (:data:`switchq.solvers.multicast.SPLIT_APPROXIMATION_NOTE`);
Hui & Renner (1994) analyse multicast HOL queuing under a similar
independence assumption.

Examples
--------
>>> round(split_independence(64, 64, [0.0, 1.0] + [0.0] * 63), 6)      # fanout 1: 2 - sqrt(2)
0.585786
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = ["split_independence"]


def split_independence(n: int, m: int, pmf) -> float:
    """Solve load E[max of |D| iid ROS sojourns] = 1, Poisson(load M E|D| / N) copies per output."""
    sizes = np.array([float(x) for x in pmf])
    scale = m * float(sizes @ np.arange(n + 1)) / n  # copies per output per unit of load

    def excess(lam):  # load * E[T] - 1 at output load lam
        return lam / scale * _expected_max_sojourn(lam, sizes) - 1.0

    if scale < 1 and excess(scale) <= 0:  # the outputs stay below 1 even at load 1
        return 1.0
    top = min(scale, 1.0)
    lo = 0.0
    for frac in (0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995):
        hi = frac * top
        if excess(hi) > 0:
            break
        lo = hi
    else:  # the root is within 0.5 % of the bound: report the bound rather than iterate on
        return top / scale
    from scipy.optimize import brentq

    return float(brentq(excess, max(lo, 1e-9), hi, xtol=1e-15, rtol=1e-13)) / scale


def _poisson(lam: float, length: int = 48) -> np.ndarray:
    """Poisson(lam) pmf on 0..length-1 (lam <= 1: the mass beyond 48 is below 1e-60)."""
    k = np.arange(length)
    logs = np.array([math.lgamma(x + 1) for x in k])
    return np.exp(k * math.log(lam) - lam - logs)


def _left_queue(lam: float, arrivals: np.ndarray) -> np.ndarray:
    """Stationary copies left after service, X = max(L - 1, 0), L' = X + A (discrete M/D/1).

    Level crossing for L (skip-free downwards) gives every term positive, so the
    recursion is stable: a_0 pi_j = pi_0 A_j + sum_{i=1}^{j-1} pi_i A_{j-i+1},
    A_k = P(arrivals >= k), pi_0 = 1 - lam.
    """
    a0 = arrivals[0]
    tail = np.concatenate((np.cumsum(arrivals[::-1])[::-1], [0.0]))  # tail[k] = P(A >= k)
    width = len(arrivals)
    pi = [1.0 - lam]
    while True:
        j = len(pi)
        lo = max(1, j - width + 1)
        # sum_{i=lo}^{j-1} pi_i A_{j-i+1}
        acc = sum(pi[i] * tail[j - i + 1] for i in range(lo, j))
        pi.append(((pi[0] * tail[j] if j < width else 0.0) + acc) / a0)
        if pi[-1] < 1e-20 * max(pi) and j > width or j > 10**6:
            break
    pi = np.array(pi)
    pi /= pi.sum()
    return np.concatenate(([pi[0] + pi[1]], pi[2:]))


@lru_cache(maxsize=256)
def _sojourn_survival(lam: float) -> np.ndarray:
    """P(T > t), t = 0, 1, ...: a tagged copy's slots until its output picks it (ROS)."""
    arrivals = _poisson(lam)
    left = _left_queue(lam, arrivals)
    others = np.convolve(left, arrivals)  # the queue it finds plus its batch-mates
    size = len(others)
    keep = np.arange(size) / (np.arange(size) + 1.0)  # with k others, picked w.p. 1/(k+1)
    survival = [1.0]
    while survival[-1] > 1e-15 and len(survival) < 10**6:
        stay = others * keep
        others = np.convolve(stay[1:], arrivals)[:size]  # one other left, a batch joined
        survival.append(float(others.sum()))
    return np.array(survival)


def _expected_max_sojourn(lam: float, sizes: np.ndarray) -> float:
    """E[max of |D| independent ROS sojourns], |D| ~ sizes: the sum over t of P(max > t)."""
    s = _sojourn_survival(lam)
    d = np.arange(len(sizes))[:, None]
    tails = (1.0 - (1.0 - s[None, :]) ** d).sum(axis=1)
    return float(sizes @ tails)
