"""Virtual output queuing: saturation throughput of PIM and iSLIP matching.

PIM (Anderson, Owicki, Saxe & Thacker, "High-speed switch scheduling for
local-area networks", ACM TOCS 11(4), 1993, §3). Under saturation every VOQ
holds cells, so every unmatched input requests every unmatched output. In one
iteration each of the n unmatched outputs grants one of the n unmatched
inputs uniformly at random, and each input that received a grant accepts one:
the new matches M are the number of distinct inputs granted, the occupancy of
n balls thrown into n bins,

    P(M = m) = C(n, m) S(n, m) m! / n^n      (S: Stirling numbers, 2nd kind),

and the unmatched inputs and outputs again form a complete request graph of
size n - M. So the expected matching after k iterations obeys

    f_k(n) = E[M + f_{k-1}(n - M)],   f_0 = 0,

and the saturation throughput is f_k(N) / N; for k = 1 it is
1 - (1 - 1/N)^N, tending to 1 - 1/e = 0.632 (Anderson et al. 1993).
Cost: O(k N^3) with the occupancy law built by an O(n^2) recursion per n.

iSLIP (McKeown, "The iSLIP scheduling algorithm for input-queued switches",
IEEE/ACM ToN 7(2), 1999, §IV): under saturation and uniform traffic the grant
pointers desynchronise and every slot is a perfect matching, so the saturation
throughput is 1 for any number of iterations.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from switchq.models import _check
from switchq.models.switch import MAX_PORTS
from switchq.models.voq import MATCHINGS

from .figures import figure, given

__all__ = ["VoqSaturation", "saturation_throughput", "occupancy_distribution"]

PIM_SOURCE = "Anderson, Owicki, Saxe & Thacker, ACM TOCS 11(4), 1993, §3"
ISLIP_SOURCE = "McKeown, IEEE/ACM Trans. Networking 7(2), 1999, §IV"


@dataclass(frozen=True)
class VoqSaturation:
    n_ports: int = given("ports")
    matching: str = given()
    iterations: int = given("iterations")
    saturation_throughput: float = figure("cells/slot/output", main=True)
    method: str = figure()
    source: str = figure()


def occupancy_distribution(n: int) -> np.ndarray:
    """P(M = m), m = 0..n: distinct bins hit when n balls fall uniformly into n bins."""
    p = np.zeros(n + 1)
    p[0] = 1.0
    for _ in range(n):
        # Throwing one more ball: it lands in an occupied bin with probability m / n.
        p[1:] = p[1:] * (np.arange(1, n + 1) / n) + p[:-1] * ((n - np.arange(0, n)) / n)
        p[0] = 0.0
    return p


@lru_cache(maxsize=None)
def _pim_matches(n: int, iterations: int) -> float:
    if n == 0 or iterations == 0:
        return 0.0
    p = occupancy_distribution(n)
    return float(sum(p[m] * (m + _pim_matches(n - m, iterations - 1)) for m in range(1, n + 1)))


def saturation_throughput(n_ports: int, matching: str = "islip", iterations: int = 1) -> VoqSaturation:
    """Saturation throughput of an N x N VOQ switch under uniform traffic.

    Examples
    --------
    >>> round(saturation_throughput(32, "pim", 1).saturation_throughput, 4)
    0.6379
    >>> saturation_throughput(16, "islip", 1).saturation_throughput
    1.0
    """
    n = _check.integer("n_ports", n_ports, 1, MAX_PORTS)
    _check.choice("matching", matching, MATCHINGS)
    k = _check.integer("iterations", iterations, 1, 64)
    if matching == "islip":
        return VoqSaturation(n, matching, k, 1.0, "pointer desynchronisation under saturation",
                             ISLIP_SOURCE)
    # min: summing the recursion in floating point can land a few ulps above a perfect match.
    return VoqSaturation(n, matching, k, min(1.0, _pim_matches(n, k) / n),
                         f"exact recursion over {k} iteration(s) of random grant/accept",
                         PIM_SOURCE)
