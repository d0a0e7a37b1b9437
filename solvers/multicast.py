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
>>> r = saturation_load("iq-nosplit", 3, 3, 1)
>>> r.rational, r.exact
('43/63', True)
>>> round(saturation_load("iq-split", 8, 2, 4).saturation_load, 4)
0.5943
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from switchq.models import _check
from switchq.models.fanout import (DISTRIBUTIONS, MAX_OUTPUTS, binomial_probability, check_fanout, fanout_cdf,
                                   fanout_law, fanout_pmf)

from .fanout import admissible_load, output_utilization
from .figures import figure, given
from .multicast_approx import split_independence
from .multicast_chains import RATIONAL_STATES, STATE_CAP, IqChain, OqChain, solve_chain

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
SOURCE = ("Kumar, Kale & Stunkel, hardware collectives in output-queued high-radix routers "
          "(paper 003) §2, §3.1; saturation argument of Karol, Hluchyj & Morgan, IEEE Trans. "
          "Commun. 35(12), 1987")
# Largest N with an exact iq chain per number of active inputs M: (fixed law, other laws).
# Chains at these edges take up to ~6 s in pure Python; one step further, 15 s to minutes.
# M = 1 is a closed form.
IQ_EXACT_OUTPUTS = {2: (16, 16), 3: (8, 8), 4: (6, 5), 5: (5, 0)}
# The same for oq-crosspoint per (M, Q). M = 1 is closed form except store-and-forward Q = 1.
OQ_EXACT = {(1, 1): (8, 8), (2, 1): (8, 4), (2, 2): (3, 2), (3, 1): (3, 0)}
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

    architecture: str = given()
    n_outputs: int = given("ports")
    active_inputs: int = given("ports")
    fanout: float = given("outputs/packet")
    distribution: str = given()
    crosspoint_cells: int | None = given("packets")
    saturation_load: float | None = figure("packets/slot/input", main=True)
    admissible_bound: float = figure("packets/slot/input")
    output_utilization: float | None = figure("copies/slot/output")
    exact: bool = figure()
    rational: str | None = figure()
    states: int | None = figure("states")
    method: str = figure()
    source: str = figure()

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
        ``oq-crosspoint`` takes it (default 4, the ``Switch`` default; another
        value for another switch is refused).
    cut_through : bool
        ``oq-crosspoint``: a copy may leave its crosspoint in the slot it
        crossed (True, the simulator's convention) or from the next slot
        (False, refused for another switch).

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
    n, f, dist = check_fanout(n_outputs, fanout, distribution)
    m = n if active_inputs is None else _check.integer("active_inputs", active_inputs, 1, n)
    q = _check.integer("crosspoint_cells", crosspoint_cells, 1, 1 << 16)
    if not isinstance(cut_through, bool):
        raise _check.InputError("cut_through", cut_through, "True or False")
    # Crosspoint buffers and their cut-through are oq-crosspoint's: given another switch, refused (as
    # switchq.architectures.multicast refuses --crosspoint-cells), not silently dropped.
    _check.only_with("crosspoint_cells", q, 4, arch == "oq-crosspoint", "architecture is oq-crosspoint")
    _check.only_with("cut_through", cut_through, True, arch == "oq-crosspoint", "architecture is oq-crosspoint")
    return _saturation(arch, n, m, f, dist, q if arch == "oq-crosspoint" else None, cut_through)


@lru_cache(maxsize=512)
def _saturation(arch, n, m, f, dist, q, cut_through) -> MulticastSaturation:
    bound = min(1.0, n / (m * f))
    pmf = fanout_law(n, f, dist)

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
            load = split_independence(n, m, pmf)
            return result(load, False, None, None, SPLIT_APPROXIMATION_NOTE,
                          SOURCE + "; independence assumption as in Hui & Renner, IEEE Trans. "
                          "Commun. 42(2/3/4):723-731, 1994 (numbers not checked)")
        where = "the sizes in " + ("OQ_EXACT" if arch == "oq-crosspoint" else "IQ_EXACT_OUTPUTS")
        return result(None, False, None, None,
                      f"no analytic form here: the exact chain stops at {where} (state "
                      "explosion); admissible_bound is an upper bound; the simulator answers it")
    if arch == "oq-crosspoint":
        chain = OqChain(m, n, pmf, q, cut_through)
        what = (f"exact lumped Markov chain of the saturated switch (HOL sets + packets in the "
                f"crossbar with per-output codes, Q = {q}, "
                f"{'cut-through' if cut_through else 'store-and-forward'})")
    else:
        chain = IqChain(m, n, pmf, split=arch == "iq-split")
        what = ("exact lumped Markov chain of the saturated HOL packets' "
                f"{'residual ' if arch == 'iq-split' else ''}destination sets")
    sol = solve_chain(chain)
    if sol is None:
        return result(None, False, None, None,
                      f"no analytic form here: the chain exceeded {STATE_CAP} states; "
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
