"""Saturation throughput of FIFO input queuing with window (look-ahead) scheduling.

Model
-----
An N x N nonblocking switch with one FIFO per input, saturated: every input
always holds at least ``w`` cells, and each cell's destination is drawn
uniformly from the N outputs when it arrives and kept while it waits.  In each
slot the scheduler sees the first ``w`` cells of every FIFO (the window) and
runs ``w`` contention rounds: in round k every input not yet matched offers
its k-th cell, and every output not yet matched that receives offers accepts
exactly one of them, chosen uniformly at random.  Accepted cells leave; the
rest keep their destinations and their order, a served input's queue shifts
up and a fresh uniform cell enters its window at the back.  The saturation
throughput is E[cells sent per slot] / N.  With ``w = 1`` this is FIFO
head-of-line (HOL) blocking (Karol, Hluchyj & Morgan 1987, Table I).

This is the window policy of Hluchyj & Karol, "Queueing in high-performance
packet switching", IEEE JSAC 6(9), 1988, and the central-control window
scheduling of Ma & Steenkiste (paper 001, sections 2.1 and 4: "the scheduler
has access to the first W packets ... When an output port frees up and
multiple packets are available, it randomly picks one").

Method
------
The state is the N x w matrix of window destinations.  Its law is invariant
under relabelling outputs and under permuting inputs, so the chain is lumped
to orbits of S_N x S_N; a class is stored as its canonical representative,
the lexicographically least matrix of the orbit (found by a branch search over
input orders that extends an output relabelling row by row).  From each
representative every random outcome is enumerated exactly: the winner drawn
by each contested output in each round, then the destinations of the fresh
cells, one at a time, where all outputs absent from the state are lumped into
one "new output" branch.  Reachable classes are found by breadth-first
search, the unique closed class is kept and ``pi P = pi`` is solved with a
sparse LU factorisation.  The result is exact up to floating-point rounding.

Cost and where exactness stops
------------------------------
There are about ``N**(N*w) / (N!)**2`` classes, so the state space explodes
with ``N * w``; each class costs a canonicalisation per outcome, in pure
Python.  :data:`EXACT_LIMITS` lists, per N, the largest window solved within
about 10 s and 60k classes on one core (measured, see its comment); larger
requests raise :class:`switchq.errors.InputError` and should be simulated
(``switchq simulate fifo --window``).

Published values
----------------
Hluchyj & Karol (1988) tabulate window throughputs, but we do not have the
table's text and do not reproduce numbers from memory; only the ``w = 1``
column (Karol et al. 1987, Table I: N = 2 0.7500, N = 3 0.6825, N = 4 0.6553)
is checked, in the tests.

Examples
--------
>>> r = saturation_throughput(2, 1)
>>> round(r.saturation_throughput, 4), r.states
(0.75, 2)
>>> round(saturation_throughput(3, 1).saturation_throughput, 4)
0.6825
>>> saturation_throughput(2, 2).saturation_throughput > 0.75
True
>>> exact_is_tractable(4, 2), exact_is_tractable(16, 1)
(True, False)
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

from switchq.errors import InputError
from switchq.models._check import integer

__all__ = [
    "WindowSaturation",
    "saturation_throughput",
    "exact_is_tractable",
    "EXACT_LIMITS",
    "SOURCE",
]

SOURCE = (
    "M. G. Hluchyj and M. J. Karol, 'Queueing in high-performance packet switching', "
    "IEEE JSAC 6(9), 1988 (window policy); w = 1 is Karol, Hluchyj and Morgan, "
    "IEEE Trans. Commun. 35(12), 1987, Table I"
)

# Largest exact window per switch size N.  PLACEHOLDER, measured below.
EXACT_LIMITS: dict[int, int] = {}


@dataclass(frozen=True)
class WindowSaturation:
    """Exact saturation throughput of window-w FIFO input queuing."""

    n_ports: int
    window: int
    saturation_throughput: float
    method: str
    states: int
    source: str


def exact_is_tractable(n_ports: int, window: int) -> bool:
    """Whether the exact lumped chain for (n_ports, window) is within :data:`EXACT_LIMITS`."""
    return window <= EXACT_LIMITS.get(n_ports, 0)


@functools.lru_cache(maxsize=None)
def saturation_throughput(n_ports: int, window: int) -> WindowSaturation:
    """Exact saturation throughput of an N x N switch with window-w FIFO inputs.

    Parameters
    ----------
    n_ports : int
        Switch size N >= 1.
    window : int
        Window depth w >= 1 (w = 1 is plain FIFO / HOL).

    Returns
    -------
    WindowSaturation

    Raises
    ------
    InputError
        If an argument is not a positive integer, or (N, w) is outside
        :data:`EXACT_LIMITS`.
    """
    n = integer("n_ports", n_ports, low=1)
    w = integer("window", window, low=1)
    if not exact_is_tractable(n, w):
        if n not in EXACT_LIMITS:
            raise InputError("n_ports", n, f"an integer in [1, {max(EXACT_LIMITS)}] "
                             "(exact chain tractable only there); "
                             "use switchq simulate fifo --window")
        raise InputError("window", w, f"an integer in [1, {EXACT_LIMITS[n]}] for n_ports={n} "
                         "(exact chain tractable only there); use switchq simulate fifo --window")
    states, p, served = _chain(n, w)
    pi = _stationary(p)
    return WindowSaturation(n, w, float(pi @ served) / n, "exact lumped Markov chain",
                            len(states), SOURCE)


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
            round_(k + 1, tuple(i for i in unmatched if i not in won), busy | offers.keys(),
                   won, q)

    round_(0, tuple(range(len(rows))), frozenset(), {}, 1.0)
    return outcomes, sent


def _arrivals(inter, n, w, canon):
    """Distribution of the next class after fresh cells fill the short rows of ``inter``.

    Cells are added one at a time with merging in between; outputs not in the
    matrix are symmetric, so they form one branch of weight (n - m) / n.
    """
    layer = {inter: 1.0}
    while True:
        nxt = {}
        for s, p in layer.items():
            j = next((i for i, r in enumerate(s) if len(r) < w), None)
            if j is None:
                return layer
            m = 1 + max((d for r in s for d in r), default=-1)
            for lab in range(min(m + 1, n)):
                t = canon(s[:j] + (s[j] + (lab,),) + s[j + 1:])
                nxt[t] = nxt.get(t, 0.0) + p * ((n - m) if lab == m else 1) / n
        layer = nxt


def _chain(n, w):
    """Lumped chain restricted to its closed class: (representatives, sparse P, E[sent])."""
    import numpy as np
    from scipy import sparse
    from scipy.sparse import csgraph

    canon = functools.lru_cache(maxsize=None)(_canon)
    filled = {}
    start = canon(tuple(tuple((i + j) % n for j in range(w)) for i in range(n)))
    index = {start: 0}
    order = [start]
    rows_, cols, vals, sent = [], [], [], []
    for s in order:  # grows while we iterate: breadth-first search
        inters, e = _contention(s, w)
        sent.append(e)
        out = {}
        for inter, p in inters.items():
            inter = canon(inter)
            if inter not in filled:
                filled[inter] = _arrivals(inter, n, w, canon)
            for t, q in filled[inter].items():
                out[t] = out.get(t, 0.0) + p * q
        for t, q in out.items():
            if t not in index:
                index[t] = len(order)
                order.append(t)
            rows_.append(index[s])
            cols.append(index[t])
            vals.append(q)
    size = len(order)
    p = sparse.csr_matrix((vals, (rows_, cols)), shape=(size, size))
    ncomp, label = csgraph.connected_components(p, directed=True, connection="strong")
    # A class is closed iff no probability leaves it; exactly one must be.
    leak = np.zeros(ncomp)
    coo = p.tocoo()
    np.add.at(leak, label[coo.row], np.where(label[coo.row] != label[coo.col], coo.data, 0.0))
    closed = np.flatnonzero(leak == 0)
    assert len(closed) == 1, "lumped chain must have exactly one closed class"
    keep = np.flatnonzero(label == closed[0])
    return [order[i] for i in keep], p[keep][:, keep], np.asarray(sent)[keep]


def _stationary(p):
    """Solve pi P = pi, sum(pi) = 1 for an irreducible sparse stochastic matrix."""
    import numpy as np
    from scipy import sparse
    from scipy.sparse.linalg import spsolve

    size = p.shape[0]
    a = (p.T - sparse.identity(size, format="csr")).tolil()
    a[size - 1, :] = np.ones(size)  # replace one redundant balance equation by normalisation
    b = np.zeros(size)
    b[-1] = 1.0
    return np.atleast_1d(spsolve(a.tocsc(), b))
