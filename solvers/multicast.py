"""Multicast saturation: output queuing with crosspoint credits vs FIFO input queuing.

Paper 003 (Kumar, Kale & Stunkel, hardware collectives in output-queued
high-radix routers) §2 proposes an output-queued switch with a crosspoint
buffer per (input, output) and credits, where a multicast packet crosses the
crossbar once and "credits for this multicast packet are only sent back after
all multicast packets have been sent out"; §2 and §3.1 compare it with FIFO
input queuing with and without fanout splitting (its refs. [12], [19]). This
module gives the analytic side: fanout laws, the admissibility bound and the
saturation load of each architecture.

Slotted model
-------------
M = ``active_inputs`` of the N = ``n_outputs`` inputs offer traffic: each slot
each receives a packet with probability ``load`` (Bernoulli; paper 003 uses
Poisson). A destination set D is drawn as a size from :func:`fanout_pmf`, then
a uniform subset of that size: ``fixed`` |D| = F; ``binomial`` each output
with probability q, conditioned on D non-empty, q solving
``N q / (1 - (1 - q)**N) = F`` (:func:`binomial_probability`; given its size
such a set is uniform); ``uniform`` |D| uniform on 1..2F-1. Load is packets per
active input per slot; an output carries ``M load E|D| / N`` copies per slot
(:func:`output_utilization`). Input queues are FIFO and unbounded.

``oq-crosspoint``
    Q cells and a credit counter per crosspoint. The head-of-line (HOL) packet
    crosses in one slot only if every destination crosspoint of its input has
    a credit, leaving a copy in each. Each output sends one copy per slot,
    oldest first; copies that crossed in the same slot are tied and one is
    chosen uniformly, independently per output and slot. All the credits of a
    packet return when its last copy leaves (it is delivered then), usable
    from the next slot. Order in a slot: HOL packets cross; outputs send (with
    ``cut_through=True``, the simulator's convention, a copy may leave in the
    slot it crossed; with False only later); finished packets free credits.
``iq-split``
    Each output picks uniformly one of the HOL packets still needing it; a
    packet leaves when no destination is left.
``iq-nosplit``
    Inputs are visited in a uniformly random order; a HOL packet goes, all
    copies at once, only if all its outputs are still free.

Method
------
With every active input backlogged (Karol et al.'s saturation argument) the
HOL process is a finite Markov chain; the saturation load is its rate of
finished packets per input per slot.

- iq: state = the M x N incidence matrix of the HOL (residual) sets, lumped by
  output relabelling (outputs counted per column pattern, a vector over the
  2**M subsets of inputs) and input relabelling (minimum over the input orders
  sorted by an invariant signature, twins not permuted). Fresh sets are dealt
  into the column classes with multivariate hypergeometric weights, split
  choices with multinomial ones; the no-split random order is a random
  sequential greedy independent set of the conflict graph (a recursion).
- oq-crosspoint: state = every input's HOL set plus the packets in the
  crossbar in crossing order (slot ties kept), each with a code per output
  (not a destination / copy sent, credit held / copy waiting); credits,
  output queues and ties follow. Lumped by output and input relabelling.

Chains are built by breadth-first search from an empty switch and solved in
floating point (SciPy sparse above 3000 states, imported only then); with a
rational fanout law and at most ``RATIONAL_STATES`` states also exactly, in
fractions. A chain with several closed classes (broadcast with Q = 2 has two)
is solved per class; classes with different rates would be weighted by the
chance of reaching them from an empty switch (the method says which).

Where exactness stops: ``IQ_EXACT_OUTPUTS`` and ``OQ_EXACT`` give the largest
N per M (and Q), for the fixed law and for the others, where a chain stays
under ~6 s in pure Python; beyond them states explode (8 x 8 no-split with
F = 4 has at least 70**8 / 8!**2 = 3.5e5 lumped states; oq-crosspoint 2 x 8,
F = 4 has 10,314 with Q = 1 but 2 x 4, F = 2 already exceeds 5e4 with Q = 2,
and variable fanout laws multiply the states). Exact in any size: M = 1
(load 1, except oq-crosspoint store-and-forward with Q = 1, a chain);
fanout 1 with M = N (Karol's chain, :mod:`.hol`); no-split when any two sets
overlap (smallest |D| > N/2): one packet per slot, ``1 / M``.

Beyond the exact range: **iq-split** uses an *independence approximation*,
the N -> infinity limit of Karol's argument, never marked exact: an output's
waiting copies form a random-order discrete M/D/1 queue with Poisson arrivals
of mean ``load M E|D| / N``, a packet's copies see independent queues, so it
holds the head for the maximum of |D| independent sojourn times and
``load E[max] = 1``. For F = 1 it is 2 - sqrt(2). It is low at finite N
(:data:`SPLIT_APPROXIMATION_NOTE`). Hui & Renner (1994) analyse multicast HOL
queuing under a similar independence assumption; we could not read their
numbers in a stored copy and quote none. **iq-nosplit and oq-crosspoint**
have no analytic answer here: ``saturation_load`` is None, with the
admissible bound as an upper bound; the simulator answers them.
**iq-wba** (split, outputs grant by HOL age minus residue; the simulator's
WBA baseline) has no model here at all: both public functions refuse it
with an InputError that says to simulate it.

Closed forms checked against the chains: broadcast (fixed F = N) gives
``1 / M`` for all three architectures (no-split: one packet per slot; split
and oq-crosspoint: every output busy every slot, observed in every exact
case, not proven here). Two inputs, no split, fixed F: the sets are disjoint
with probability ``d = C(N-F, F) / C(N, F)`` afresh each slot (the loser of a
conflict meets a fresh set), so ``load = (1 + d) / 2``.

Paper 003 §3.1 (Poisson arrivals, 2 or 4 cells per crosspoint, its own
timing) saturates 8 x 8 with mean fanout 4 near 0.25, the admissible bound
8 / (8 * 4), and 2 x 8 near 0.8. Exact chains here, 2 x 8, fixed F = 4:
0.6029 (oq-crosspoint, Q = 1, cut-through; 0.4948 store-and-forward),
0.5943 (iq-split), 0.5071 (iq-nosplit). Q = 2, 4 and 8 x 8 are beyond them.

References
----------
S. Kumar, L. V. Kale and C. Stunkel, "Architecture for supporting hardware
collectives in output-queued high-radix routers" (paper 003), §2, §3.1.
M. J. Karol, M. G. Hluchyj and S. P. Morgan, "Input versus output queueing on
a space-division packet switch", IEEE Trans. Commun. 35(12):1347-1356, 1987.
J. Y. Hui and T. Renner, "Queueing analysis for multicast packet switching",
IEEE Trans. Commun. 42(2/3/4):723-731, 1994.
M. Ajmone Marsan, A. Bianco, P. Giaccone, E. Leonardi and F. Neri, "On the
throughput of input-queued cell-based switches with multicast traffic",
Proc. IEEE INFOCOM 2001 (paper 003's ref. [12]).

Examples
--------
>>> admissible_load(8, 8, 4)
0.25
>>> fanout_pmf(4, 2, "uniform").round(4).tolist()
[0.0, 0.3333, 0.3333, 0.3333, 0.0]
>>> r = saturation_load("iq-nosplit", 3, 3, 1)
>>> r.rational, r.exact
('43/63', True)
>>> round(saturation_load("iq-split", 8, 2, 4).saturation_load, 4)
0.5943
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from switchq.models import _check

__all__ = [
    "ARCHITECTURES",
    "DISTRIBUTIONS",
    "MulticastSaturation",
    "admissible_load",
    "binomial_probability",
    "fanout_pmf",
    "fanout_cdf",
    "output_utilization",
    "saturation_load",
    "is_exact",
    "IQ_EXACT_OUTPUTS",
    "OQ_EXACT",
    "RATIONAL_STATES",
    "SPLIT_APPROXIMATION_NOTE",
    "SOURCE",
    "SIMULATED_ONLY",
]

ARCHITECTURES = ("oq-crosspoint", "iq-split", "iq-nosplit")
# Multicast architectures the simulator has and this module has no model of.
SIMULATED_ONLY = ("iq-wba",)
DISTRIBUTIONS = ("fixed", "binomial", "uniform")
SOURCE = ("Kumar, Kale & Stunkel, hardware collectives in output-queued high-radix routers "
          "(paper 003) §2, §3.1; saturation argument of Karol, Hluchyj & Morgan, IEEE Trans. "
          "Commun. 35(12), 1987")
MAX_OUTPUTS = 1024  # pmfs and bounds only; the chains stop far below (IQ_EXACT_OUTPUTS, OQ_EXACT)
# Largest N with an exact iq chain per number of active inputs M: (fixed law, other laws).
# Chains at these edges take up to ~6 s in pure Python; one step further, 15 s to minutes.
# M = 1 is a closed form.
IQ_EXACT_OUTPUTS = {2: (16, 16), 3: (8, 8), 4: (6, 5), 5: (5, 0)}
# The same for oq-crosspoint per (M, Q). M = 1 is closed form except store-and-forward Q = 1.
OQ_EXACT = {(1, 1): (8, 8), (2, 1): (8, 4), (2, 2): (3, 2), (3, 1): (3, 0)}
RATIONAL_STATES = 60     # exact rationals by Fraction elimination up to here (~0.1 s)
_DENSE_STATES = 3000     # dense numpy solve below, SciPy sparse above
_STATE_CAP = 200_000     # safety net: a chain this large is abandoned, not solved
SPLIT_APPROXIMATION_NOTE = (
    "independence approximation (N -> infinity limit), not exact: each output a random-order "
    "discrete M/D/1 queue with Poisson copy arrivals, a packet's copies independent; 2 - sqrt(2) "
    "for F = 1. Low at finite N: by 10-25 % against the exact chains for M, N <= 8; against a "
    "saturated simulation (M = N, F = 4, 2e4 slots) by 11 % at N = 8, 5.6 % at 16, 2.7 % at 32, "
    "1.2 % at 64, 0.6 % at 128 (the gap shrinks about like 1/N)")


@dataclass(frozen=True)
class MulticastSaturation:
    """Saturation load of a multicast switch (packets per active input per slot).

    Attributes
    ----------
    architecture : str
        One of ``ARCHITECTURES``.
    n_outputs, active_inputs : int
        N and M.
    fanout : float
        Mean fanout F.
    distribution : str
        Fanout law, one of ``DISTRIBUTIONS``.
    crosspoint_cells : int or None
        Q for ``oq-crosspoint``, None otherwise.
    saturation_load : float or None
        Largest stable ``load``; None where this module has no analytic answer
        (the simulator answers it; ``admissible_bound`` still bounds it).
    admissible_bound : float
        ``min(1, N / (M F))``: no architecture carries more.
    output_utilization : float or None
        Copies per output per slot at ``saturation_load``.
    exact : bool
        True when ``saturation_load`` is the exact stationary value of the
        lumped chain (up to floating-point rounding).
    rational : str or None
        The exact value as a fraction, for small chains with rational fanout laws.
    states : int or None
        Lumped states reached (None if no chain was built).
    method : str
        How the value was obtained, and where it stops.
    source : str
        Citation.
    """

    architecture: str
    n_outputs: int
    active_inputs: int
    fanout: float
    distribution: str
    crosspoint_cells: int | None
    saturation_load: float | None
    admissible_bound: float
    output_utilization: float | None
    exact: bool
    rational: str | None
    states: int | None
    method: str
    source: str

    @property
    def answer(self) -> tuple[float, str]:
        """The number to report and what it is: exact, an approximation, or the admissible upper bound.

        Examples
        --------
        >>> saturation_load("iq-nosplit", 8, 8, 4).answer[1]
        'upper bound (admissible load min(1, N/(M F)); simulate for the value)'
        """
        if self.saturation_load is not None:
            return self.saturation_load, "exact" if self.exact else "approximation"
        return self.admissible_bound, "upper bound (admissible load min(1, N/(M F)); simulate for the value)"


# ---------------------------------------------------------------- fanout laws

def _check_fanout(n_outputs, fanout, distribution) -> tuple[int, float, str]:
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
    n, f, _ = _check_fanout(n_outputs, fanout, "binomial")
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
    n, f, dist = _check_fanout(n_outputs, fanout, distribution)
    return np.array([float(x) for x in _pmf(n, f, dist)])


def fanout_cdf(n_outputs, fanout, distribution="fixed") -> np.ndarray:
    """Cumulative ``fanout_pmf`` with the last entry exactly 1, for inverse-CDF sampling.

    A simulator draws ``k = searchsorted(cdf, u, side="right")`` with u uniform
    on [0, 1) and then a uniform k-subset of the outputs.

    Examples
    --------
    >>> fanout_cdf(3, 2, "uniform")
    array([0.        , 0.33333333, 0.66666667, 1.        ])
    """
    cdf = np.cumsum(fanout_pmf(n_outputs, fanout, distribution))
    cdf[-1] = 1.0  # rounding must not leave a gap above the last size
    return cdf


@lru_cache(maxsize=256)
def _pmf(n: int, f: float, dist: str) -> tuple:
    """The size law as Fractions (fixed, uniform) or floats (binomial), k = 0..n."""
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


def admissible_load(n_outputs, active_inputs, fanout) -> float:
    """Largest load any switch can carry: ``min(1, N / (M F))``.

    Each output sends at most one copy per slot and receives ``M load F / N``
    on average; each input accepts at most one packet per slot.

    Parameters
    ----------
    n_outputs : int
        N in [1, 1024].
    active_inputs : int
        M in [1, N].
    fanout : float
        Mean fanout F in [1, N].

    Examples
    --------
    >>> admissible_load(8, 2, 4), admissible_load(8, 8, 4), admissible_load(16, 8, 3)
    (1.0, 0.25, 0.6666666666666666)
    """
    n = _check.integer("n_outputs", n_outputs, 1, MAX_OUTPUTS)
    m = _check.integer("active_inputs", active_inputs, 1, n)
    f = _check.real("fanout", fanout, 1.0, float(n))
    return min(1.0, n / (m * f))


def output_utilization(n_outputs, active_inputs, fanout, load) -> float:
    """Copies per output per slot, ``M * load * F / N``, at packet ``load`` per input.

    Examples
    --------
    >>> output_utilization(8, 2, 4, 0.5)
    0.5
    """
    n = _check.integer("n_outputs", n_outputs, 1, MAX_OUTPUTS)
    m = _check.integer("active_inputs", active_inputs, 1, n)
    f = _check.real("fanout", fanout, 1.0, float(n))
    x = _check.real("load", load, 0.0, 1.0)
    return m * x * f / n


# ---------------------------------------------------------------- the public solver

def _architecture(value) -> str:
    """One of ``ARCHITECTURES``; a simulated-only architecture is told to simulate (one-line InputError)."""
    if isinstance(value, str) and value in SIMULATED_ONLY:
        raise _check.InputError("architecture", value, "one of " + ", ".join(ARCHITECTURES)
                                + f" ({value} has no analytic model here; simulate it)")
    return _check.choice("architecture", value, ARCHITECTURES)


def is_exact(architecture, n_outputs, active_inputs, distribution="fixed", crosspoint_cells=4,
             cut_through=True) -> bool:
    """Whether :func:`saturation_load` has an exact chain or closed form for these sizes.

    Special cases outside these ranges are still exact (fanout 1 with M = N is
    Karol's chain; no-split with every two sets overlapping gives 1 / M);
    :func:`saturation_load` reports them.

    Examples
    --------
    >>> is_exact("iq-split", 8, 2), is_exact("iq-split", 8, 8)
    (True, False)
    >>> is_exact("oq-crosspoint", 8, 2, crosspoint_cells=1), is_exact("oq-crosspoint", 8, 2)
    (True, False)
    >>> is_exact("iq-wba", 8, 2)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: architecture: got 'iq-wba'; allowed: ... (iq-wba has no analytic model here; simulate it)
    """
    arch = _architecture(architecture)
    n = _check.integer("n_outputs", n_outputs, 1, MAX_OUTPUTS)
    m = _check.integer("active_inputs", active_inputs, 1, n)
    _check.choice("distribution", distribution, DISTRIBUTIONS)
    q = _check.integer("crosspoint_cells", crosspoint_cells, 1, 1 << 16)
    return _tractable(arch, n, m, q, bool(cut_through), distribution)


def _tractable(arch: str, n: int, m: int, q: int, cut_through: bool, dist: str = "fixed") -> bool:
    limits = IQ_EXACT_OUTPUTS.get(m) if arch != "oq-crosspoint" else OQ_EXACT.get((m, q))
    if arch != "oq-crosspoint" and m == 1 or arch == "oq-crosspoint" and m == 1 and (
            cut_through or q > 1):
        return True  # closed forms
    return limits is not None and n <= limits[dist != "fixed"]


def saturation_load(architecture, n_outputs, active_inputs, fanout, distribution="fixed",
                    crosspoint_cells=4, cut_through=True) -> MulticastSaturation:
    """Saturation load (largest stable packets per active input per slot) of a multicast switch.

    Parameters
    ----------
    architecture : {"oq-crosspoint", "iq-split", "iq-nosplit"}
    n_outputs : int
        N in [1, 1024] (the exact chains stop far below; see the module docstring).
    active_inputs : int or None
        M in [1, N]; None means all N.
    fanout : float
        Mean fanout F (see :func:`fanout_pmf` for the range per law).
    distribution : {"fixed", "binomial", "uniform"}
    crosspoint_cells : int
        Q >= 1, cells per crosspoint (credits per input-output pair); only
        ``oq-crosspoint`` uses it (default 4, the ``Switch`` default).
    cut_through : bool
        ``oq-crosspoint``: a copy may leave its crosspoint in the slot it
        crossed (True, the simulator's convention) or from the next slot.

    Returns
    -------
    MulticastSaturation
        ``exact`` True inside the exact range; for iq-split beyond it, the
        labelled independence approximation; otherwise ``saturation_load`` None.

    Raises
    ------
    switchq.errors.InputError
        Naming the bad parameter; for ``iq-wba`` (simulator only), saying so.

    Notes
    -----
    Cost: most exact cases take milliseconds to a second; the edges of the
    exact range take longer (oq-crosspoint 2 x 8 with F = 4, 10,314 states,
    about 2 s; iq 4 x 6 binomial, 2,864 states, about 15 s; 5 x 5 split with
    F = 4, 3,488 states, about 6 s). The approximation takes milliseconds.
    Results are cached per process.

    Examples
    --------
    >>> round(saturation_load("iq-split", 4, 4, 1).saturation_load, 4)
    0.6552
    >>> saturation_load("iq-nosplit", 6, 3, 6).rational
    '1/3'
    >>> r = saturation_load("iq-nosplit", 8, 8, 4)
    >>> r.saturation_load is None, r.admissible_bound
    (True, 0.25)
    >>> r = saturation_load("iq-split", 8, 8, 4)
    >>> r.exact, round(r.saturation_load, 4), r.method[:38]
    (False, 0.1891, 'independence approximation (N -> infin')
    >>> round(saturation_load("iq-split", 32, 32, 1).saturation_load, 4)  # Karol's chain, hol
    0.5936
    """
    arch = _architecture(architecture)
    n, f, dist = _check_fanout(n_outputs, fanout, distribution)
    m = n if active_inputs is None else _check.integer("active_inputs", active_inputs, 1, n)
    q = _check.integer("crosspoint_cells", crosspoint_cells, 1, 1 << 16)
    if not isinstance(cut_through, bool):
        raise _check.InputError("cut_through", cut_through, "True or False")
    return _saturation(arch, n, m, f, dist, q if arch == "oq-crosspoint" else None, cut_through)


@lru_cache(maxsize=512)
def _saturation(arch, n, m, f, dist, q, cut_through) -> MulticastSaturation:
    bound = min(1.0, n / (m * f))
    pmf = _pmf(n, f, dist)

    def result(load, exact, rational, states, method, source=SOURCE):
        util = None if load is None else m * load * f / n
        return MulticastSaturation(arch, n, m, f, dist, q, load, bound, util, exact,
                                   rational, states, method, source)

    if m == 1 and arch != "oq-crosspoint":
        return result(1.0, True, "1", None, "closed form: a lone HOL packet gets all its "
                      "outputs every slot")
    if arch == "oq-crosspoint" and m == 1 and cut_through:
        return result(1.0, True, "1", None,
                      "closed form: one active input with cut-through; every copy finds its "
                      "output idle (earlier packets left in their own slot), so a packet "
                      "crosses and completes each slot")
    if arch == "oq-crosspoint" and m == 1 and q > 1:
        return result(1.0, True, "1", None,
                      "closed form: one active input, store-and-forward, Q >= 2; a packet's "
                      "copies leave the slot after crossing, so at most two packets hold "
                      "credits and a packet crosses every slot")
    smallest = next(k for k, p in enumerate(pmf) if p)
    if arch == "iq-nosplit" and 2 * smallest > n and m > 1:
        return result(1 / m, True, str(Fraction(1, m)), None,
                      f"closed form: every two destination sets overlap (|D| >= {smallest} > "
                      "N/2), so exactly one HOL packet goes per slot: 1 / M")
    if arch != "oq-crosspoint" and f == 1 and m == n and not _tractable(arch, n, m, 1, True):
        # One destination per packet: splitting or not, this is Karol's unicast HOL switch,
        # which hol solves exactly to N = 20 and within 1e-10 beyond.
        from . import hol

        h = hol.saturation_throughput(n)
        return result(h.saturation_throughput, h.states is not None, h.exact, h.states,
                      "fanout 1 is unicast FIFO input queuing: " + h.method, h.source)
    if not _tractable(arch, n, m, q or 1, cut_through, dist):
        if arch == "iq-split":
            load = _split_independence(n, m, pmf)
            return result(load, False, None, None, SPLIT_APPROXIMATION_NOTE,
                          SOURCE + "; independence assumption as in Hui & Renner, IEEE Trans. "
                          "Commun. 42(2/3/4):723-731, 1994 (numbers not checked)")
        where = "the sizes in " + ("OQ_EXACT" if arch == "oq-crosspoint" else "IQ_EXACT_OUTPUTS")
        return result(None, False, None, None,
                      f"no analytic form here: the exact chain stops at {where} (state "
                      "explosion); admissible_bound is an upper bound; the simulator answers it")
    if arch == "oq-crosspoint":
        chain = _OqChain(m, n, pmf, q, cut_through)
        what = (f"exact lumped Markov chain of the saturated switch (HOL sets + packets in the "
                f"crossbar with per-output codes, Q = {q}, "
                f"{'cut-through' if cut_through else 'store-and-forward'})")
    else:
        chain = _IqChain(m, n, pmf, split=arch == "iq-split")
        what = ("exact lumped Markov chain of the saturated HOL packets' "
                f"{'residual ' if arch == 'iq-split' else ''}destination sets")
    sol = _solve(chain)
    if sol is None:
        return result(None, False, None, None,
                      f"no analytic form here: the chain exceeded {_STATE_CAP} states; "
                      "admissible_bound is an upper bound; the simulator answers it")
    load, rational, states, (classes, same) = sol
    method = f"{what}, {states} states"
    if classes > 1 and same:
        method += f"; {classes} closed classes, all with this rate"
    elif classes > 1:
        method += (f"; {classes} closed classes with different rates, weighted by the "
                   "probability of reaching each from an empty switch")
    if rational is not None:
        method += ", rational arithmetic"
    # min: the stationary sum can land an ulp above the admissible bound (e.g. broadcast).
    return result(min(load, bound), True, rational, states, method)


# ---------------------------------------------------------------- chain solving

def _solve(chain):
    """Build the chain by BFS and return (load, rational or None, states, closed classes)."""
    built = _build(chain, float)
    if built is None:
        return None
    states, rows, rates, start = built
    load, classes, same = _stationary_rate(rows, rates, start)
    rational = None
    if chain.rational_ok and len(states) <= RATIONAL_STATES and classes == 1:
        exact_rows = _build(chain, Fraction)
        value = _rational_rate(*exact_rows[1:3]) / chain.m
        load, rational = float(value), str(value)
    else:
        load /= chain.m
    return load, rational, len(states), (classes, same)


def _build(chain, numeric):
    chain.numeric = numeric
    chain.reset()
    start = {}
    for s, p in chain.initial().items():
        start[s] = start.get(s, 0) + p
    index = {s: i for i, s in enumerate(start)}
    order = list(start)
    rows, rates = [], []
    i = 0
    while i < len(order):
        nxt, rate = chain.step(order[i])
        row = {}
        for t, p in nxt.items():
            j = index.get(t)
            if j is None:
                j = index[t] = len(order)
                order.append(t)
            row[j] = row.get(j, 0) + p
        rows.append(row)
        rates.append(rate)
        i += 1
        if len(order) > _STATE_CAP:
            return None
    start_vec = {index[s]: p for s, p in start.items()}
    return order, rows, rates, start_vec


def _stationary_rate(rows, rates, start):
    """Long-run completions per slot from the start distribution: (rate, classes, all equal)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    k = len(rows)
    src = [i for i, row in enumerate(rows) for _ in row]
    dst = [j for row in rows for j in row]
    prob = [float(x) for row in rows for x in row.values()]
    matrix = csr_matrix((prob, (src, dst)), shape=(k, k))
    _, label = connected_components(matrix, directed=True, connection="strong")
    closed = np.ones(label.max() + 1, dtype=bool)
    leaving = label[src] != label[dst]
    closed[label[np.array(src)[leaving]]] = False  # a class with an exit is transient
    classes = [np.nonzero(label == c)[0] for c in np.nonzero(closed)[0]]
    rates = np.array([float(x) for x in rates])
    values = [float(_stationary(matrix[idx][:, idx]) @ rates[idx]) for idx in classes]
    if len(classes) == 1 or max(values) - min(values) < 1e-12:
        return values[0], len(classes), True
    # Classes with different rates: weight each by the chance of ending in it from the
    # start distribution (power iteration, removing mass as it reaches a closed class).
    mass = np.zeros(k)
    for v, x in start.items():
        mass[v] = float(x)
    absorbed = np.zeros(len(classes))
    for _ in range(1_000_000):
        for c, idx in enumerate(classes):
            absorbed[c] += mass[idx].sum()
            mass[idx] = 0.0
        if mass.sum() < 1e-15:
            break
        mass = matrix.T @ mass
    return float(absorbed @ np.array(values) / absorbed.sum()), len(classes), False


def _stationary(matrix):
    """Stationary distribution of an irreducible chain (SciPy sparse transition matrix)."""
    k = matrix.shape[0]
    if k == 1:
        return np.ones(1)
    b = np.zeros(k)
    b[-1] = 1.0
    if k <= _DENSE_STATES:
        a = matrix.toarray().T - np.eye(k)
        a[-1] = 1.0  # pi (P - I) = 0 has rank k - 1: one balance equation becomes sum(pi) = 1
        return np.linalg.solve(a, b)
    from scipy.sparse import eye, vstack
    from scipy.sparse.linalg import spsolve

    a = (matrix.T - eye(k, format="csr")).tocsr()
    a = vstack([a[:-1], np.ones((1, k))]).tocsc()
    return spsolve(a, b)


def _rational_rate(rows, rates) -> Fraction:
    """Exact stationary rate by Gaussian elimination over Fractions (small chains only)."""
    k = len(rows)
    a = [[Fraction(0)] * (k + 1) for _ in range(k)]
    for i, row in enumerate(rows):
        for j, p in row.items():
            a[j][i] += p
    for j in range(k):
        a[j][j] -= 1
    a[-1] = [Fraction(1)] * k + [Fraction(1)]
    for col in range(k):
        pivot = next(r for r in range(col, k) if a[r][col] != 0)
        a[col], a[pivot] = a[pivot], a[col]
        inv = 1 / a[col][col]
        a[col] = [x * inv for x in a[col]]
        for r in range(k):
            if r != col and a[r][col] != 0:
                factor = a[r][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col])]
    return sum((a[i][k] * rates[i] for i in range(k)), Fraction(0))


def _arrangements(classes):
    """Orders of the rows of ``classes`` up to swaps inside a class (multiset permutations)."""
    if len(classes) == 1:
        yield tuple(classes[0])
        return
    counts = [len(c) for c in classes]
    total = sum(counts)

    def rec(prefix):
        if len(prefix) == total:
            yield prefix
            return
        for k in range(len(classes)):
            if counts[k]:
                counts[k] -= 1
                yield from rec(prefix + (k,))
                counts[k] += 1

    for labels in rec(()):
        taken = [0] * len(classes)
        order = []
        for k in labels:
            order.append(classes[k][taken[k]])
            taken[k] += 1
        yield tuple(order)


@lru_cache(maxsize=None)
def _compositions(total: int, parts: int) -> tuple[tuple[int, ...], ...]:
    if parts == 1:
        return ((total,),)
    return tuple((j,) + rest for j in range(total + 1)
                 for rest in _compositions(total - j, parts - 1))


def _multinomial_outcomes(total: int, parts: int, numeric):
    """Each split of ``total`` outputs over ``parts`` equally likely choices, with its probability."""
    return [(js, numeric(math.factorial(total) // math.prod(math.factorial(j) for j in js))
             / parts ** total) for js in _compositions(total, parts)]


def _deal(classes, k, n, numeric):
    """Uniform k-subset of n outputs split over classes of sizes ``classes``.

    Yields (taken per class, probability): multivariate hypergeometric.
    """
    total = math.comb(n, k)
    sizes = [c for _, c in classes]
    rest = [sum(sizes[i:]) for i in range(len(sizes) + 1)]

    def rec(i, left):
        if i == len(sizes):
            yield ()
            return
        for j in range(max(0, left - rest[i + 1]), min(sizes[i], left) + 1):
            for tail in rec(i + 1, left - j):
                yield (j,) + tail

    for js in rec(0, k):
        ways = math.prod(math.comb(c, j) for c, j in zip(sizes, js))
        yield js, numeric(ways) / total


class _IqChain:
    """Saturated FIFO input queues: state = outputs per column pattern (a 2**M vector)."""

    def __init__(self, m, n, pmf, split):
        self.m, self.n, self.split = m, n, split
        self.pmf_raw = pmf
        self.rational_ok = all(isinstance(x, Fraction) for x in pmf)
        self.pop = [bin(p).count("1") for p in range(1 << m)]
        self._tables = {}

    def reset(self):
        self.pmf = [self.numeric(x) for x in self.pmf_raw]
        self._fresh = {}
        self._outcomes = {}
        self._canon = {}

    def initial(self):
        start = tuple([self.n] + [0] * ((1 << self.m) - 1))
        return self._canon_dist(self._add_rows(start, range(self.m)))

    def _table(self, order):
        # order[j] = old row placed at new position j
        t = self._tables.get(order)
        if t is None:
            new_pos = [0] * self.m
            for j, r in enumerate(order):
                new_pos[r] = j
            t = [sum(1 << new_pos[r] for r in range(self.m) if p >> r & 1)
                 for p in range(1 << self.m)]
            self._tables[order] = t
        return t

    def canon(self, counts):
        got = self._canon.get(counts)
        if got is None:
            got = self._canon[counts] = self._canonical(counts)
        return got

    def _canonical(self, counts):
        m = self.m
        nz = [(p, c) for p, c in enumerate(counts) if c]
        # A row's signature (sizes and counts of the patterns it belongs to) survives
        # relabelling, so rows are sorted by it and permuted only within ties; within a tie,
        # "twins" (rows whose swap leaves the state unchanged) need not be permuted at all.
        sig = [tuple(sorted((self.pop[p], c) for p, c in nz if p >> r & 1)) for r in range(m)]
        rows = sorted(range(m), key=sig.__getitem__)
        groups = []
        for _, g in itertools.groupby(rows, key=sig.__getitem__):
            classes = []
            for r in g:
                for cls in classes:
                    if self._twins(counts, nz, cls[0], r):
                        cls.append(r)
                        break
                else:
                    classes.append([r])
            groups.append(classes)
        best = None
        for choice in itertools.product(*(_arrangements(g) for g in groups)):
            t = self._table(tuple(r for g in choice for r in g))
            new = [0] * len(counts)
            for p, c in nz:
                new[t[p]] = c
            new = tuple(new)
            if best is None or new < best:
                best = new
        return best

    @staticmethod
    def _twins(counts, nz, r, s):
        swap = (1 << r) | (1 << s)
        return all(counts[p ^ swap] == c for p, c in nz if (p >> r & 1) != (p >> s & 1))

    def _canon_dist(self, dist):
        out = {}
        for s, p in dist.items():
            c = self.canon(s)
            out[c] = out.get(c, 0) + p
        return out

    def _add_row(self, counts, r):
        key = (counts, r)
        got = self._fresh.get(key)
        if got is not None:
            return got
        classes = [(p, c) for p, c in enumerate(counts) if c]
        out = {}
        for k, pk in enumerate(self.pmf):
            if not pk:
                continue
            for js, w in _deal(classes, k, self.n, self.numeric):
                new = list(counts)
                for (p, _), j in zip(classes, js):
                    if j:
                        new[p] -= j
                        new[p | 1 << r] += j
                t = tuple(new)
                out[t] = out.get(t, 0) + pk * w
        self._fresh[key] = out
        return out

    def _add_rows(self, counts, rows):
        dist = {counts: self.numeric(1)}
        for r in rows:
            nxt = {}
            for c, p in dist.items():
                for c2, p2 in self._add_row(c, r).items():
                    nxt[c2] = nxt.get(c2, 0) + p * p2
            dist = nxt
        return dist

    def step(self, counts):
        return self._step_split(counts) if self.split else self._step_nosplit(counts)

    def _step_nosplit(self, counts):
        m = self.m
        conflict = [0] * m
        for p, c in enumerate(counts):
            if c:
                for r in range(m):
                    if p >> r & 1:
                        conflict[r] |= p & ~(1 << r)
        memo = {}
        one = self.numeric(1)

        def greedy(cand):
            # Random order = repeatedly pick a uniformly random input among those still
            # able to go (inputs blocked by an earlier winner never matter again).
            if cand == 0:
                return {0: one}
            if cand in memo:
                return memo[cand]
            rows = [r for r in range(m) if cand >> r & 1]
            out = {}
            for r in rows:
                for s, p in greedy(cand & ~(1 << r) & ~conflict[r]).items():
                    out[s | 1 << r] = out.get(s | 1 << r, 0) + p / len(rows)
            memo[cand] = out
            return out

        nxt, rate = {}, 0
        for served, p in greedy((1 << m) - 1).items():
            rows = [r for r in range(m) if served >> r & 1]
            rate += p * len(rows)
            cleared = [0] * len(counts)
            for pat, c in enumerate(counts):
                if c:
                    cleared[pat & ~served] += c
            for t, p2 in self._add_rows(tuple(cleared), rows).items():
                t = self.canon(t)
                nxt[t] = nxt.get(t, 0) + p * p2
        return nxt, rate

    def _step_split(self, counts):
        m = self.m
        dist = {tuple([0] * len(counts)): self.numeric(1)}
        for pat, c in enumerate(counts):
            if not c:
                continue
            if pat == 0:  # outputs no HOL packet needs stay idle
                dist = {tuple(v + c if i == 0 else v for i, v in enumerate(d)): p
                        for d, p in dist.items()}
                continue
            rows = [r for r in range(m) if pat >> r & 1]
            key = (c, len(rows))
            outcomes = self._outcomes.get(key)
            if outcomes is None:
                outcomes = self._outcomes[key] = _multinomial_outcomes(c, len(rows), self.numeric)
            nxt = {}
            for d, p in dist.items():
                for js, w in outcomes:
                    new = list(d)
                    for r, j in zip(rows, js):
                        new[pat & ~(1 << r)] += j  # the j outputs that picked row r drop it
                    t = tuple(new)
                    nxt[t] = nxt.get(t, 0) + p * w
            dist = nxt
        out, rate = {}, 0
        for d, p in dist.items():
            alive = 0
            for pat, c in enumerate(d):
                if c:
                    alive |= pat
            done = [r for r in range(m) if not alive >> r & 1]
            rate += p * len(done)
            for t, p2 in self._add_rows(d, done).items():
                t = self.canon(t)
                out[t] = out.get(t, 0) + p * p2
        return out, rate


# Output codes of a packet in the crossbar.
_NOT_DEST, _SENT, _WAITING = 0, 1, 2


class _OqChain:
    """Saturated crosspoint-buffered output queuing with coupled multicast credits.

    State: (packets, columns). ``packets`` lists (batch, input) in crossing
    order, batch 0 the oldest (one batch per crossing slot, renumbered
    densely). ``columns`` is the sorted multiset of output signatures
    ``(hol_mask, code_0, code_1, ...)``: which inputs' HOL packets want the
    output, and each packet's code there.
    """

    def __init__(self, m, n, pmf, q, cut_through):
        self.m, self.n, self.q, self.cut_through = m, n, q, cut_through
        self.pmf_raw = pmf
        self.rational_ok = all(isinstance(x, Fraction) for x in pmf)
        self.perms = list(itertools.permutations(range(m)))

    def reset(self):
        self.pmf = [self.numeric(x) for x in self.pmf_raw]
        self._fresh = {}
        self._outcomes = {}

    def initial(self):
        self._canon = {}
        dist = {(((0,), self.n),): self.numeric(1)}
        for i in range(self.m):
            dist = self._add_hol(dist, i)
        return self._canon_dist((), dist)

    def canon(self, packets, columns):
        key = (packets, columns)
        got = self._canon.get(key)
        if got is None:
            got = self._canon[key] = self._canonical(packets, columns)
        return got

    def _canonical(self, packets, columns):
        best = None
        for perm in self.perms:
            order = sorted(range(len(packets)), key=lambda x: (packets[x][0], perm[packets[x][1]]))
            new_packets = tuple((packets[x][0], perm[packets[x][1]]) for x in order)
            cols = {}
            for sig, c in columns:
                mask = sum(1 << perm[i] for i in range(self.m) if sig[0] >> i & 1)
                s = (mask,) + tuple(sig[1 + x] for x in order)
                cols[s] = cols.get(s, 0) + c
            key = (new_packets, tuple(sorted(cols.items())))
            if best is None or key < best:
                best = key
        return best

    def _canon_dist(self, packets, dist):
        out = {}
        for cols, p in dist.items():
            s = self.canon(packets, cols)
            out[s] = out.get(s, 0) + p
        return out

    def _add_hol(self, dist, i):
        """Deal a fresh HOL set for input i into the column classes."""
        out = {}
        for cols, p in dist.items():
            got = self._fresh.get((cols, i))
            if got is None:
                got = {}
                for k, pk in enumerate(self.pmf):
                    if not pk:
                        continue
                    for js, w in _deal(cols, k, self.n, self.numeric):
                        new = {}
                        for (sig, c), j in zip(cols, js):
                            if c - j:
                                new[sig] = new.get(sig, 0) + c - j
                            if j:
                                s2 = (sig[0] | 1 << i,) + sig[1:]
                                new[s2] = new.get(s2, 0) + j
                        t = tuple(sorted(new.items()))
                        got[t] = got.get(t, 0) + pk * w
                self._fresh[(cols, i)] = got
            for t, p2 in got.items():
                out[t] = out.get(t, 0) + p * p2
        return out

    def step(self, state):
        packets, columns = state
        m, q = self.m, self.q
        held = len(packets)
        # 1. A HOL packet crosses if every destination crosspoint of its input has a credit:
        #    fewer than Q packets of that input in the crossbar still hold one there.
        movers = []
        for i in range(m):
            mine = [x for x in range(held) if packets[x][1] == i]
            if all(sum(1 for x in mine if sig[1 + x]) < q for sig, _ in columns if sig[0] >> i & 1):
                movers.append(i)
        batch = packets[-1][0] + 1 if packets else 0
        now = packets + tuple((batch, i) for i in movers)
        moved = sum(1 << i for i in movers)
        # 2. Each output sends its oldest waiting copy; a tie (same crossing slot) is broken
        #    uniformly and independently per output, so a class of c equal outputs splits
        #    multinomially over the tied packets.
        per_class = []
        for sig, c in columns:
            codes = list(sig[1:]) + [_WAITING if sig[0] >> i & 1 else _NOT_DEST for i in movers]
            mask = sig[0] & ~moved
            waiting = [x for x in range(len(now))
                       if codes[x] == _WAITING and (self.cut_through or x < held)]
            if not waiting:
                per_class.append([((((mask,) + tuple(codes), c),), None)])
                continue
            oldest = min(now[x][0] for x in waiting)
            tied = [x for x in waiting if now[x][0] == oldest]
            key = (c, len(tied))
            outcomes = self._outcomes.get(key)
            if outcomes is None:
                outcomes = self._outcomes[key] = _multinomial_outcomes(c, len(tied), self.numeric)
            options = []
            for js, w in outcomes:
                parts = []
                for x, j in zip(tied, js):
                    if j:
                        sent = list(codes)
                        sent[x] = _SENT
                        parts.append(((mask,) + tuple(sent), j))
                options.append((tuple(parts), w))
            per_class.append(options)
        dist = {(): self.numeric(1)}
        for options in per_class:
            if options[0][1] is None:  # no copy waiting here: nothing random
                parts = options[0][0]
                dist = {d + parts: p for d, p in dist.items()}
                continue
            nxt = {}
            for d, p in dist.items():
                for parts, w in options:
                    t = d + parts
                    nxt[t] = nxt.get(t, 0) + p * w
            dist = nxt
        # 3. Packets with no copy left return all their credits (usable next slot);
        # 4. inputs whose packet crossed get a fresh HOL packet.
        out, rate = {}, 0
        for d, p in dist.items():
            cols = {}
            for sig, c in d:
                cols[sig] = cols.get(sig, 0) + c
            alive = [x for x in range(len(now)) if any(s[1 + x] == _WAITING for s in cols)]
            rate += p * (len(now) - len(alive))
            batches = {b: r for r, b in enumerate(sorted({now[x][0] for x in alive}))}
            kept = tuple((batches[now[x][0]], now[x][1]) for x in alive)
            slim = {}
            for sig, c in cols.items():
                s = (sig[0],) + tuple(sig[1 + x] for x in alive)
                slim[s] = slim.get(s, 0) + c
            fresh = {tuple(sorted(slim.items())): self.numeric(1)}
            for i in movers:
                fresh = self._add_hol(fresh, i)
            for t, p2 in self._canon_dist(kept, fresh).items():
                out[t] = out.get(t, 0) + p * p2
        return out, rate


# ---------------------------------------------------------------- large-N iq-split

def _split_independence(n: int, m: int, pmf) -> float:
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
