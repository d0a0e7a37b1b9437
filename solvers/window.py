"""Saturation throughput of FIFO input queuing with window (look-ahead) scheduling.

Model
-----
An N x N nonblocking switch with one FIFO per input, saturated: every input
always holds at least ``w`` cells, and each cell's destination is drawn
uniformly from the N outputs when it arrives and kept while it waits.  In each
slot the scheduler sees the first ``w`` cells of every FIFO (the window) and
matches inputs to outputs, at most one cell per input and per output, by one
of two rules (``window_policy``, as the simulator's):

``"rounds"``
    Hluchyj & Karol, "Queueing in high-performance packet switching", IEEE
    JSAC 6(9), 1988: ``w`` contention rounds; in round k every input not yet
    matched offers its k-th cell, and every output not yet matched that
    receives offers accepts exactly one of them, chosen uniformly at random.
``"random"``
    Central control of Ma & Steenkiste (paper 001, section 2.1): "the
    scheduler has access to the first W packets waiting at each input port.
    When an output port frees up and multiple packets are available, it
    randomly picks one."  All outputs free up together and the events of one
    slot run in random order, so: the outputs take turns in a uniformly random
    order, and each picks one cell uniformly at random among all cells
    addressed to it in the windows of inputs not yet matched (an input with
    two such cells is twice as likely to be chosen).

Either way accepted cells leave; the rest keep their destinations and their
order, a served input's queue shifts up and a fresh uniform cell enters its
window at the back.  The saturation throughput is E[cells sent per slot] / N.
With ``w = 1`` both rules are FIFO head-of-line blocking (Karol, Hluchyj &
Morgan 1987, Table I), the model of :mod:`switchq.solvers.hol`.  Both rules
always end in a maximal matching, but they serve different cells: for every
``w >= 2`` we can solve, ``"random"`` is the faster one, by 0.0096 to 0.023
(N = 2, w = 2: 41/48 = 0.8542 against 37/44 = 0.8409).

Method
------
The state is the N x w matrix of window destinations.  Both rules treat
inputs alike and outputs alike, so the law of the chain is invariant under
relabelling outputs and under permuting inputs, and the chain is lumped
to orbits of S_N x S_N; each class is stored as its canonical representative,
the lexicographically least matrix of the orbit (a branch search over input
orders that extends the output relabelling row by row, branching only on
ties).  From each representative every random outcome is enumerated exactly:
for ``"rounds"`` the winner each contested output draws in each round; for
``"random"`` the output that goes next (uniform over those still able to
pick, so all N! orders are summed; memoised on the outputs and inputs left)
and the cell it picks; then the destinations of the fresh cells, added one
at a time with merging in between, where the N - m outputs absent from the
matrix form one "new output" branch of weight (N - m) / N.  Breadth-first search collects the reachable classes (every
class, wherever we counted them), the chain is checked irreducible, and
``pi P = pi`` is solved by power iteration on the lazy chain to an L1 step
below 1e-13, so throughputs are exact to about 1e-12 (w = 1 agrees with
:mod:`switchq.solvers.hol` to 1e-13 under both rules).

Cost and where exactness stops
------------------------------
There are about ``N**(N*w) / (N!)**2`` classes, each with up to thousands of
successors, so cost explodes with ``N * w``; the enumeration is pure Python.
:data:`EXACT_LIMITS` gives, per N, the largest window that builds and solves
in about 10 s and 1 GB under ``"rounds"`` (N = 2: w <= 9, 65,792 classes;
N = 3: w <= 4; N = 4: w <= 3; N = 5, 6: w <= 2; N = 7..9: w = 1; N >= 10 not
at all, though :mod:`switchq.solvers.hol` covers w = 1 for any N).  The
``"random"`` rule serves cells at more positions, so its rows hold 1.8 to 8
times as many transitions and :data:`EXACT_LIMITS_RANDOM` is one window
smaller at N = 2, 4 and 6 (N = 2: w <= 8; N = 4: w <= 2; N = 6: w = 1).
Outside them :func:`saturation_throughput` raises
:class:`switchq.errors.InputError`; simulate instead
(``switchq simulate fifo --window``, ``Switch(window_policy=...)``).

Published values
----------------
Hluchyj & Karol (1988) tabulate throughput against window size, but we have
no copy of that table and do not quote its numbers from memory, so none are
stored here; Ma & Steenkiste (paper 001, Figure 1) plot central control only
for 32 and more ports, beyond exact reach.  The ``w = 1`` column reproduces
Karol et al. (1987) Table I (N = 2 0.7500, 3 0.6825, 5 0.6399, ..., 8 0.6184)
after rounding, except that the table's N = 4 and N = 6 entries (0.6553,
0.6302) are one unit high: the exact values are 325/496 = 0.655242 and
0.630150, as :mod:`switchq.solvers.hol` also finds; the tests check all of
this.

Examples
--------
>>> r = saturation_throughput(2, 1)
>>> round(r.saturation_throughput, 4), r.states
(0.75, 2)
>>> round(saturation_throughput(3, 1).saturation_throughput, 4)
0.6825
>>> round(saturation_throughput(2, 2).saturation_throughput, 6)  # 37/44
0.840909
>>> exact_is_tractable(4, 3), exact_is_tractable(4, 4)
(True, False)

The central-control rule of paper 001:

>>> r = saturation_throughput(2, 2, window_policy="random")
>>> r.window_policy, round(r.saturation_throughput, 6)  # 41/48
('random', 0.854167)
>>> exact_is_tractable(4, 3, window_policy="random"), exact_is_tractable(4, 2, window_policy="random")
(False, True)
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

from switchq.errors import InputError
from switchq.models._check import choice, integer

from .figures import figure, given
from .markov import stationary_power

__all__ = [
    "WindowSaturation",
    "saturation_throughput",
    "exact_is_tractable",
    "POLICIES",
    "EXACT_LIMITS",
    "EXACT_LIMITS_RANDOM",
    "SOURCE",
    "SOURCE_RANDOM",
]

# The simulator's names (switchq.models.switch.WINDOW_POLICIES), listed here
# rather than imported so a policy added there without a chain here is refused.
POLICIES = ("rounds", "random")

SOURCE = (
    "M. G. Hluchyj and M. J. Karol, 'Queueing in high-performance packet switching', "
    "IEEE JSAC 6(9), 1988 (window policy); w = 1 is Karol, Hluchyj and Morgan, "
    "IEEE Trans. Commun. 35(12), 1987, Table I"
)
SOURCE_RANDOM = (
    "Q. Ma and P. Steenkiste, 'Performance of Circuit Switched LANs under Different "
    "Traffic Conditions', paper 001 section 2.1 (central control: each freed output "
    "picks one of the packets for it in the first W of every input at random); "
    "w = 1 is Karol, Hluchyj and Morgan, IEEE Trans. Commun. 35(12), 1987, Table I"
)

# Largest window solved exactly, per switch size N: the pairs whose lumped
# chain builds and solves in about 10 s and 1 GB on one core (measured,
# Python 3.11).  Classes / seconds at the limit: N=2 w=9 65,792 / 4;
# N=3 w=4 15,343 / 1.2; N=4 w=3 32,450 / 6; N=5 w=2 1,270 / 0.4;
# N=6 w=2 8,838 / 8.5 (11.8M transitions); N=9 w=1 30 / 2.
# One step further: N=2 w=10 262,656 / 17; N=10 w=1 42 / 21 (canonicalising
# highly symmetric states); N=7 w=2 unfinished after 120 s (~3e4 classes
# with thousands of successors each); N=3 w=5 and N=4 w=4 have ~4e5 and ~7e6
# classes by N**(N*w) / (N!)**2.  N=1 has one class for every w; 64 only
# bounds memory.
EXACT_LIMITS: dict[int, int] = {1: 64, 2: 9, 3: 4, 4: 3, 5: 2, 6: 2, 7: 1, 8: 1, 9: 1}

# The same for policy "random": same classes, but an output may take any cell
# of its inputs' windows, so each class has more successors and the build is
# slower.  Seconds / peak memory at the limit: N=2 w=8 2.6 s / 120 MB; N=3 w=4
# 4.6 s / 210 MB (2.7M transitions); N=4 w=2 0.4 s; N=5 w=2 1.0 s / 90 MB;
# N=9 w=1 2.5 s.  One step further: N=2 w=9 14 s / 330 MB; N=4 w=3 34 s /
# 1.6 GB (34M transitions); N=6 w=2 23 s / 1.05 GB (21M transitions).
EXACT_LIMITS_RANDOM: dict[int, int] = {1: 64, 2: 8, 3: 4, 4: 2, 5: 2, 6: 1, 7: 1, 8: 1, 9: 1}

_LIMITS = {"rounds": EXACT_LIMITS, "random": EXACT_LIMITS_RANDOM}
_METHOD = {"rounds": "exact lumped Markov chain",
           "random": "exact lumped Markov chain, random policy (Ma & Steenkiste, paper 001 §2.1)"}
_SOURCE = {"rounds": SOURCE, "random": SOURCE_RANDOM}

_ADVICE = "use switchq simulate fifo --window"


@dataclass(frozen=True)
class WindowSaturation:
    """Exact saturation throughput of window-w FIFO input queuing (see module docstring).

    ``window_policy`` is last, with a default, so positional construction of
    the earlier fields keeps working.
    """

    n_ports: int = given("ports")
    window: int = given("cells")
    saturation_throughput: float = figure("cells/slot/output", main=True)
    method: str = figure()
    states: int = figure("states")
    source: str = figure()
    window_policy: str = given(default="rounds")


def exact_is_tractable(n_ports: int, window: int, window_policy: str = "rounds") -> bool:
    """Whether (n_ports, window) is within the exact limits of ``window_policy``.

    Parameters
    ----------
    n_ports, window : int
        Switch size N >= 1 and window depth w >= 1.
    window_policy : {"rounds", "random"}
        Window scheduling rule; limits are :data:`EXACT_LIMITS` and
        :data:`EXACT_LIMITS_RANDOM`.

    Returns
    -------
    bool

    Raises
    ------
    InputError
        If n_ports or window is not a positive integer, or policy is unknown
        (named ``window_policy``, as in :func:`switchq.Switch`).

    Examples
    --------
    >>> exact_is_tractable(2, 9), exact_is_tractable(2, 9, window_policy="random")
    (True, False)
    """
    n, w, policy = _validate(n_ports, window, window_policy)
    return w <= _LIMITS[policy].get(n, 0)


def saturation_throughput(n_ports: int, window: int, window_policy: str = "rounds") -> WindowSaturation:
    """Exact saturation throughput of an N x N switch with window-w FIFO inputs.

    Parameters
    ----------
    n_ports : int
        Switch size N >= 1.
    window : int
        Window depth w >= 1 (w = 1 is plain FIFO, head-of-line blocking).
    window_policy : {"rounds", "random"}
        ``"rounds"``: Hluchyj & Karol's w contention rounds; ``"random"``:
        Ma & Steenkiste's central control, outputs in random order each
        picking one of their cells at random (see the module docstring).

    Returns
    -------
    WindowSaturation
        Throughput per port, with the lumped state count and the policy;
        cached per process.

    Raises
    ------
    InputError
        If an argument is not a positive integer, the policy is unknown
        (parameter ``window_policy``), or (N, w) is outside the policy's
        limits, :data:`EXACT_LIMITS` or :data:`EXACT_LIMITS_RANDOM` (the
        message names the parameter to change).

    Examples
    --------
    >>> r = saturation_throughput(3, 2, window_policy="random")
    >>> round(r.saturation_throughput, 4), r.states, r.window_policy
    (0.7991, 31, 'random')
    >>> round(saturation_throughput(3, 2).saturation_throughput, 4)  # rounds
    0.7803
    >>> saturation_throughput(4, 3, window_policy="random")
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: window: got 3; allowed: an integer in [1, 2] for n_ports=4, ...
    """
    n, w, policy = _validate(n_ports, window, window_policy)
    limits = _LIMITS[policy]
    # Name the policy only where its limits differ, so rounds messages read as before.
    which = "" if policy == "rounds" else f", window_policy={policy}"
    if n not in limits:
        raise InputError("n_ports", n, f"an integer in [1, {max(limits)}]{which} "
                         "(exact chain tractable only there; for window=1 see "
                         f"switchq.solvers.hol); {_ADVICE}")
    if w > limits[n]:
        raise InputError("window", w, f"an integer in [1, {limits[n]}] for n_ports={n}{which} "
                         f"(exact chain tractable only there); {_ADVICE}")
    return _solve(n, w, policy)


def _validate(n_ports, window, policy):
    """Checked (N, w, policy); the policy is called window_policy, as in Switch."""
    return (integer("n_ports", n_ports, low=1), integer("window", window, low=1),
            choice("window_policy", policy, POLICIES))


# Behind validation, so the cache sees only ints (2.0 and 2 share an entry).
@functools.lru_cache(maxsize=None)
def _solve(n, w, policy):
    states, p, sent = _chain(n, w, policy)
    pi = stationary_power(p)
    return WindowSaturation(n, w, float(pi @ sent) / n, _METHOD[policy], len(states),
                            _SOURCE[policy], policy)


def _canon(rows):
    """Least matrix (tuple of row tuples) in the orbit of ``rows`` under S_N x S_N.

    Rows may differ in length (a served input's window is one short until its
    fresh cell arrives); tuples order shorter-prefix first, so the order is total.
    Rows are placed one at a time: the next row must be the least one under
    the relabelling fixed so far (new outputs numbered in order of first
    appearance), and only ties are branched on.
    """
    best = None

    def place(remaining, mapping, prefix):
        nonlocal best
        if not remaining:
            if best is None or prefix < best:
                best = prefix
            return
        cands = {}
        for idx, row in enumerate(remaining):
            if row in cands:  # identical rows give identical branches
                continue
            nxt, new, out = len(mapping), {}, []
            for d in row:
                lab = mapping.get(d)
                if lab is None:
                    lab = new.get(d)
                    if lab is None:
                        lab = new[d] = nxt
                        nxt += 1
                out.append(lab)
            cands[row] = (tuple(out), new, idx)
        low = min(c[0] for c in cands.values())
        depth = len(prefix)
        # A tie sibling explored earlier already put a smaller row here.
        if best is not None and (low,) > best[depth:depth + 1] and prefix == best[:depth]:
            return
        for val, new, idx in cands.values():
            if val == low:
                place(remaining[:idx] + remaining[idx + 1:], {**mapping, **new}, prefix + (val,))

    place(tuple(rows), {}, ())
    return best


def _contention(rows, w):
    """All outcomes of one slot's w rounds from window matrix ``rows``.

    Returns ({intermediate matrix: probability}, expected cells sent), where
    the intermediate matrix has each served input's sent cell removed.
    """
    outcomes = {}
    sent = 0.0

    def round_(k, unmatched, busy, served, p):
        nonlocal sent
        if k == w or not unmatched:
            inter = tuple(r[:served[i]] + r[served[i] + 1:] if i in served else r
                          for i, r in enumerate(rows))
            outcomes[inter] = outcomes.get(inter, 0.0) + p
            sent += p * len(served)
            return
        offers = {}
        for i in unmatched:
            d = rows[i][k]
            if d not in busy:
                offers.setdefault(d, []).append(i)
        q = p / math.prod(len(g) for g in offers.values())
        for winners in itertools.product(*offers.values()):
            won = {**served, **dict.fromkeys(winners, k)}
            round_(k + 1, tuple(i for i in unmatched if i not in won), busy.union(offers), won, q)

    round_(0, tuple(range(len(rows))), frozenset(), {}, 1.0)
    return outcomes, sent


def _random_contention(rows, w):
    """All outcomes of one slot of the random rule (paper 001 §2.1) from ``rows``.

    Outputs take turns in a uniformly random order; each picks one cell
    uniformly among the cells addressed to it in the windows of inputs not yet
    matched.  Returns the same ({intermediate matrix: probability}, expected
    cells sent) as :func:`_contention`.

    Enumerating the N! orders is replaced by a recursion that draws the next
    output among those still to go: an output left with no available cell
    only ever gets its turn wasted (inputs are never freed within a slot), so
    it is dropped and the next one is uniform over the rest.  Subproblems
    (outputs still to go, inputs still free) recur across orders and are
    memoised; an outcome is coded as sum (k + 1) * (w + 1)**i over served
    inputs i and served positions k, so joining a pick to a sub-outcome is an
    addition.
    """
    cells = {}
    for i, r in enumerate(rows):
        for k, d in enumerate(r):
            cells.setdefault(d, []).append((i, k))
    base = w + 1
    # Per output: the inputs holding a cell for it, as a bitmask, to test liveness cheaply.
    holders = {o: sum({1 << i for i, _ in group}) for o, group in cells.items()}

    @functools.lru_cache(maxsize=None)
    def slot(outs, free):
        # (bitmask of outputs still to go, bitmask of free inputs) -> {code: probability}
        live = [o for o in cells if outs >> o & 1 and holders[o] & free]
        if not live:
            return {0: 1.0}
        outs = sum(1 << o for o in live)
        dist = {}
        for o in live:
            avail = [(i, k) for i, k in cells[o] if free >> i & 1]
            share = 1.0 / (len(live) * len(avail))
            for i, k in avail:
                code = (k + 1) * base ** i
                for c, p in slot(outs & ~(1 << o), free & ~(1 << i)).items():
                    dist[c + code] = dist.get(c + code, 0.0) + share * p
        return dist

    # Row i after its cell k - 1 is sent (digit k), or untouched (digit 0).
    variants = [(r,) + tuple(r[:k] + r[k + 1:] for k in range(len(r))) for r in rows]
    outcomes = {}
    sent = 0.0
    for code, p in slot(sum(1 << o for o in cells), (1 << len(rows)) - 1).items():
        inter = []
        for v in variants:
            code, k = divmod(code, base)
            inter.append(v[k])
            if k:
                sent += p
        inter = tuple(inter)
        outcomes[inter] = outcomes.get(inter, 0.0) + p
    return outcomes, sent


_CONTENTION = {"rounds": _contention, "random": _random_contention}


def _arrivals(inter, n, w, canon):
    """Distribution of the next class after fresh cells fill the short rows of ``inter``.

    Cells are added one at a time with merging in between; outputs not in the
    matrix are symmetric, so they form one branch of weight (n - m) / n.
    """
    layer = {inter: 1.0}
    while True:
        nxt = {}
        for s, p in layer.items():
            # Any short row may be filled first: fresh cells are iid.
            j = next((i for i, r in enumerate(s) if len(r) < w), None)
            if j is None:
                return layer
            m = 1 + max((d for r in s for d in r), default=-1)
            for lab in range(min(m + 1, n)):
                t = canon(s[:j] + (s[j] + (lab,),) + s[j + 1:])
                nxt[t] = nxt.get(t, 0.0) + p * ((n - m) if lab == m else 1) / n
        layer = nxt


def _chain(n, w, policy="rounds"):
    """Lumped chain: (class representatives, sparse transition matrix P, E[cells sent | class])."""
    import numpy as np
    from scipy import sparse
    from scipy.sparse import csgraph

    canon = functools.lru_cache(maxsize=None)(_canon)
    contention = _CONTENTION[policy]
    index, order = {}, []

    def number(t):
        if t not in index:
            index[t] = len(order)
            order.append(t)
        return index[t]

    # Few distinct intermediates recur across many states, so each one's
    # arrival distribution is built once and kept as index/probability arrays.
    filled = {}
    number(canon(tuple(tuple((i + j) % n for j in range(w)) for i in range(n))))
    rows_, cols, vals, sent = [], [], [], []
    for s in order:  # grows while we iterate: breadth-first search
        inters, e = contention(s, w)
        sent.append(e)
        parts = []
        for inter, p in inters.items():
            inter = canon(inter)
            if inter not in filled:
                dist = _arrivals(inter, n, w, canon)
                filled[inter] = (np.array([number(t) for t in dist], dtype=np.int32),
                                 np.array(list(dist.values())))
            parts.append((filled[inter][0], p * filled[inter][1]))
        targets, inverse = np.unique(np.concatenate([c for c, _ in parts]), return_inverse=True)
        cols.append(targets)
        vals.append(np.bincount(inverse, weights=np.concatenate([v for _, v in parts])))
        rows_.append(np.full(len(targets), index[s], dtype=np.int32))
    size = len(order)
    p = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows_), np.concatenate(cols))),
                          shape=(size, size))
    # Every class is reachable from every other (checked for all tractable
    # sizes), so the stationary vector is unique; refuse to guess otherwise.
    if csgraph.connected_components(p, directed=True, connection="strong")[0] != 1:
        raise RuntimeError(f"lumped chain for n_ports={n}, window={w}, window_policy={policy} "
                           "is not irreducible")
    return order, p, np.asarray(sent)
