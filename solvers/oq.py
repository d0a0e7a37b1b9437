"""Ideal output queuing: mean wait (closed form) and finite-buffer loss (exact Markov chain).

What is modelled
----------------
An N x N switch whose fabric can deliver up to N cells to an output in one
slot (speedup N), so cells only ever queue at the outputs. Each input receives
a cell with probability ``p`` per slot (Bernoulli, uniform destinations), so
the number of cells addressed to a tagged output in slot m is

.. math:: A_m \\sim \\mathrm{Binomial}(N, p/N) \\quad (N \\to \\infty:\\ \\mathrm{Poisson}(p)).

Slot convention (the simulator implements exactly this): the A_m cells join
the output queue in random order among themselves, then the cell at the head
is transmitted during slot m. The queue length at the end of slot m, counting
the cell being sent, is (Karol, Hluchyj & Morgan 1987, output-queuing analysis)

.. math:: Q_m = \\min\\{\\max(0, Q_{m-1} - 1) + A_m,\\ b\\},

with b the buffer in cells including the one being sent (b = inf for an
unbounded buffer); arrivals that do not fit are lost. A cell's *wait* is the
number of slots before its transmission slot, i.e. the number of cells ahead
of it when it joins the queue (0 if it is sent in its arrival slot); its
*latency* is wait + 1.

Formulas
--------
Unbounded buffer (Karol et al. 1987, mean waiting time for output queuing):

.. math:: \\overline{W} = \\frac{N-1}{N} \\cdot \\frac{p}{2(1-p)}
          \\;\\xrightarrow{N\\to\\infty}\\; \\frac{p}{2(1-p)}.

Finite buffer b (exact, solved numerically with numpy): the (b+1)-state chain
Q_m is skip-free to the left (it falls by at most one per slot), so the cut
between states {0..j} and {j+1..b} gives the balance equations

.. math:: \\pi_{j+1}\\, a_0 = \\sum_{i=0}^{j} \\pi_i\\, P(A > j - \\max(0, i-1)),
          \\qquad j = 0, \\dots, b-1,

a recursion of non-negative terms (relative accuracy is kept even for loss
probabilities of 1e-15). With R = max(0, Q_{m-1} - 1) the cells left over from
the previous slot (P(R=0) = pi_0 + pi_1, P(R=r) = pi_{r+1}):

* loss probability = E[lost] / E[A], with
  E[lost] = sum_r P(R=r) E[(r + A - b)^+] and E[(A - c)^+] = sum_{x >= c} P(A > x);
* a tagged arriving cell sees R cells from before plus J cells of its own batch
  placed ahead of it. With the size-biased batch (P(K=k) = k a_k / p) and a
  uniform position, P(J = j) = P(A > j) / p, independent of R. It is accepted
  iff R + J <= b - 1 and then waits R + J slots, so

  .. math:: \\overline{W}_b = \\frac{E[(R+J)\\,1\\{R+J \\le b-1\\}]}{P(R+J \\le b-1)},
            \\qquad P(R+J \\le b-1) = 1 - P_{loss}.

* mean_queue = E[Q_m] (end of slot, counting the cell being sent); Little's law
  gives mean_queue = throughput * (mean_wait + 1), a check used by the tests.

References
----------
M. J. Karol, M. G. Hluchyj and S. P. Morgan, "Input versus output queueing on
a space-division packet switch", IEEE Trans. Commun. 35(12):1347-1356, 1987
(output-queuing analysis: mean waiting time and packet loss with a finite
output buffer b).

Examples
--------
>>> mean_wait(8, 0.5).mean_wait
0.4375
>>> round(mean_wait(None, 0.9).mean_wait, 6)
4.5
>>> fb = finite_buffer(16, 0.9, 200)
>>> round(fb.mean_wait, 6) == round(mean_wait(16, 0.9).mean_wait, 6)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from switchq.errors import InputError
from switchq.models import _check

from .figures import figure, given
from .markov import skip_free_stationary

__all__ = [
    "OqWait",
    "OqFiniteBuffer",
    "mean_wait",
    "mean_wait_expression",
    "finite_buffer",
    "arrival_pmf",
    "SOURCE",
    "MAX_BUFFER_CELLS",
]

SOURCE = ("Karol, Hluchyj & Morgan, 'Input versus output queueing on a space-division "
          "packet switch', IEEE Trans. Commun. 35(12):1347-1356, 1987 (output queuing)")

# Same bound as models.Switch.output_buffer_cells; the chain is solved in O(b) time.
MAX_BUFFER_CELLS = 1 << 20

# C(N, k) (p/N)^k <= p^k / k! < 1e-300 for k >= 200 and p <= 1: arrival
# probabilities beyond this many cells underflow to zero in double precision.
_MAX_BATCH = 200


@dataclass(frozen=True)
class OqWait:
    """Mean wait of ideal output queuing with an unbounded buffer.

    Attributes
    ----------
    n_ports : int or None
        N; None means the N -> infinity limit (Poisson arrivals).
    load : float
        p, cells per slot per input, in [0, 1).
    mean_wait : float
        Mean number of slots a cell waits before its transmission slot.
    mean_latency : float
        mean_wait + 1 (counting the transmission slot).
    formula : str
    source : str
    """

    n_ports: int | None = given("ports")
    load: float = given("cells/slot/input")
    mean_wait: float = figure("slots", main=True)
    mean_latency: float = figure("slots")
    formula: str = figure()
    source: str = figure()


@dataclass(frozen=True)
class OqFiniteBuffer:
    """Exact stationary answer for an output queue of ``buffer_cells`` cells.

    Attributes
    ----------
    n_ports : int or None
        N; None means the N -> infinity limit (Poisson arrivals).
    load : float
        p, offered cells per slot per input (= per output), in [0, 1].
    buffer_cells : int
        b, cells the output queue holds including the one being sent.
    loss_probability : float
        Fraction of offered cells lost (E[lost] / E[A]).
    throughput : float
        Carried cells per slot per output, p (1 - loss_probability).
    mean_wait : float
        Mean slots an accepted cell waits before its transmission slot.
    mean_latency : float
        mean_wait + 1: slots from arrival to the end of transmission.
    mean_queue : float
        E[Q_m]: cells in the queue at the end of a slot, counting the one sent.
    states : int
        b + 1, the size of the Markov chain.
    method : str
        How the answer was computed (also available as ``formula``).
    source : str
    queue_distribution : tuple of float
        Stationary P(Q_m = q), q = 0..b.
    """

    n_ports: int | None = given("ports")
    load: float = given("cells/slot/input")
    buffer_cells: int = given("cells")
    loss_probability: float = figure("1")
    throughput: float = figure("cells/slot/output")
    mean_wait: float = figure("slots", main=True)
    mean_latency: float = figure("slots", init=False)       # mean_wait + 1, set at construction
    mean_queue: float = figure("cells")
    states: int = figure("states")
    method: str = figure()
    source: str = figure()
    queue_distribution: tuple = field(default=(), repr=False)

    def __post_init__(self):
        object.__setattr__(self, "mean_latency", self.mean_wait + 1.0)

    @property
    def formula(self) -> str:
        """Alias of ``method``, for symmetry with :class:`OqWait`."""
        return self.method


# --------------------------------------------------------------------------- checks

def _check_ports(n_ports) -> int | None:
    if n_ports is None:
        return None
    return _check.integer("n_ports", n_ports, 1)


def _check_load(load, stable: bool) -> float:
    if stable:
        try:
            return _check.real("load", load, 0, 1, high_open=True)
        except InputError as err:
            raise InputError("load", err.value, "a number in [0, 1) (an unbounded output "
                             "queue is unstable at load 1)") from None
    return _check.real("load", load, 0, 1)


# ----------------------------------------------------------------------- closed form

def mean_wait(n_ports: int | None, load: float) -> OqWait:
    """Mean wait of ideal output queuing with unbounded buffers (Karol et al. 1987).

    Parameters
    ----------
    n_ports : int or None
        N >= 1; None for N -> infinity.
    load : float
        p in [0, 1).

    Returns
    -------
    OqWait
        ``mean_wait`` = (N-1)/N * p / (2 (1-p)) slots; ``mean_latency`` = that + 1.

    Raises
    ------
    InputError
        n_ports not an integer >= 1 (or None); load outside [0, 1).

    Examples
    --------
    >>> mean_wait(8, 0.5).mean_wait
    0.4375
    >>> mean_wait(8, 0.5).mean_latency
    1.4375
    >>> mean_wait(1, 0.9).mean_wait      # one input per output: nobody ever waits
    0.0
    >>> mean_wait(8, 1.0)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: load: got 1.0; allowed: a number in [0, 1) (an unbounded output queue is unstable at load 1)
    """
    n = _check_ports(n_ports)
    p = _check_load(load, stable=True)
    factor = 1.0 if n is None else (n - 1) / n
    w = factor * p / (2.0 * (1.0 - p))
    formula = ("W = p / (2 (1 - p))  [N -> inf]" if n is None
               else "W = (N - 1)/N * p / (2 (1 - p))")
    return OqWait(n_ports=n, load=p, mean_wait=w, mean_latency=w + 1.0,
                  formula=formula, source=SOURCE + ", mean waiting time")


def mean_wait_expression():
    """The closed form as a SymPy expression in symbols ``N`` and ``p``.

    SymPy is imported here, not at module import.

    Examples
    --------
    >>> import sympy
    >>> e = mean_wait_expression()
    >>> N, p = sorted(e.free_symbols, key=str)
    >>> e.subs({N: 8, p: sympy.Rational(1, 2)})
    7/16
    >>> sympy.simplify(sympy.limit(e, N, sympy.oo) - p / (2 * (1 - p)))
    0
    """
    import sympy

    N = sympy.Symbol("N", positive=True, integer=True)
    p = sympy.Symbol("p", nonnegative=True)
    return (N - 1) / N * p / (2 * (1 - p))


# ----------------------------------------------------------------------- finite buffer

def arrival_pmf(n_ports: int | None, load: float) -> np.ndarray:
    """P(A = k) for the cells addressed to one output in one slot.

    Binomial(N, p/N), or Poisson(p) for N = None, truncated where the
    probabilities underflow (k < 200 suffices for p <= 1).

    Examples
    --------
    >>> arrival_pmf(2, 0.5).round(4).tolist()
    [0.5625, 0.375, 0.0625]
    """
    n = _check_ports(n_ports)
    p = _check_load(load, stable=False)
    kmax = _MAX_BATCH if n is None else min(n, _MAX_BATCH)
    a = np.zeros(kmax + 1)
    if n is None:
        a[0] = math.exp(-p)
        for k in range(1, kmax + 1):
            a[k] = a[k - 1] * p / k
        return a
    q = p / n
    if q >= 1.0:                       # N = 1, p = 1: one cell every slot
        a[1] = 1.0
        return a
    a[0] = math.exp(n * math.log1p(-q))
    ratio = q / (1.0 - q)
    for k in range(1, kmax + 1):
        a[k] = a[k - 1] * (n - k + 1) / k * ratio
    return a


def finite_buffer(n_ports: int | None, load: float, buffer_cells: int) -> OqFiniteBuffer:
    """Exact loss, throughput and wait of an output queue holding ``buffer_cells`` cells.

    Solves the (b+1)-state Markov chain Q_m = min(max(0, Q_{m-1} - 1) + A_m, b)
    of Karol et al. (1987) exactly; see the module docstring for the equations.

    Parameters
    ----------
    n_ports : int or None
        N >= 1; None for N -> infinity (Poisson arrivals).
    load : float
        p in [0, 1] (a finite queue is stable at any load).
    buffer_cells : int
        b >= 1, counting the cell being sent.

    Returns
    -------
    OqFiniteBuffer

    Raises
    ------
    InputError
        A parameter outside its range; the message names it.

    Examples
    --------
    >>> r = finite_buffer(None, 0.9, 1)          # b = 1: only one cell per slot gets in
    >>> round(r.loss_probability, 6) == round(1 - (1 - math.exp(-0.9)) / 0.9, 6)
    True
    >>> r.mean_wait, r.states
    (0.0, 2)
    >>> f"{finite_buffer(16, 0.8, 10).loss_probability:.3e}"
    '2.275e-03'
    >>> finite_buffer(16, 0.8, 0)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: buffer_cells: got 0; allowed: an integer in [1, 1048576]
    """
    n = _check_ports(n_ports)
    p = _check_load(load, stable=False)
    b = _check.integer("buffer_cells", buffer_cells, 1, MAX_BUFFER_CELLS)

    a = arrival_pmf(n, p)
    # tail[x] = P(A > x), summed from the top so tiny tails keep full precision.
    ge = np.cumsum(a[::-1])[::-1]                # ge[k] = P(A >= k)
    tail = np.append(ge[1:], 0.0)
    nz = np.flatnonzero(tail)
    tail = tail[: (nz[-1] + 1 if nz.size else 1)]
    L = len(tail)

    pi = skip_free_stationary(a, tail, b)
    # R = cells left from the previous slot, on 0..b-1.
    pr = pi[1:].copy()
    pr[0] += pi[0]

    method = ("exact (b+1)-state Markov chain Q_m = min(max(0, Q_{m-1}-1) + A_m, b), "
              "A_m ~ " + ("Poisson(p)" if n is None else "Binomial(N, p/N)")
              + "; loss = E[lost]/E[A]; wait of accepted cells by conditioning on "
              "R = max(0, Q_{m-1}-1) and the size-biased batch position J, "
              "P(J=j) = P(A>j)/p")
    src = SOURCE + ", packet loss with a finite output buffer b"

    mean_queue = float(np.dot(np.arange(b + 1), pi))
    if p == 0.0:
        return OqFiniteBuffer(n_ports=n, load=p, buffer_cells=b, loss_probability=0.0,
                              throughput=0.0, mean_wait=0.0, mean_queue=mean_queue,
                              states=b + 1, method=method, source=src,
                              queue_distribution=tuple(float(x) for x in pi))

    # E[(A - c)^+] = sum_{x >= c} P(A > x) =: G[c]  (G[c] = 0 for c >= L)
    G = np.cumsum(tail[::-1])[::-1]
    r = np.arange(b)
    c = b - r                                     # room left for the batch, 1..b
    Gc = np.where(c < L, G[np.minimum(c, L - 1)], 0.0)
    lost = float(np.dot(pr, Gc))
    loss = min(max(lost / p, 0.0), 1.0)

    # Accepted iff R + J <= b - 1, with P(J = j) = tail[j] / p.
    F0 = np.cumsum(tail)                          # sum_{j <= m} P(A > j)
    F1 = np.cumsum(np.arange(L) * tail)           # sum_{j <= m} j P(A > j)
    m = np.minimum(b - 1 - r, L - 1)              # >= 0 since r <= b - 1
    acc = float(np.dot(pr, F0[m])) / p
    num = float(np.dot(pr, r * F0[m] + F1[m])) / p
    w = num / acc if acc > 0.0 else 0.0

    return OqFiniteBuffer(n_ports=n, load=p, buffer_cells=b, loss_probability=loss,
                          throughput=p * (1.0 - loss), mean_wait=w, mean_queue=mean_queue,
                          states=b + 1, method=method, source=src,
                          queue_distribution=tuple(float(x) for x in pi))
