"""Stationary distributions of finite Markov chains: the one helper every chain solver of switchq uses.

Karol et al.'s HOL chain (:mod:`.hol`), the window chains (:mod:`.window`),
the output queue (:mod:`.oq`) and the multicast chains
(:mod:`.multicast_chains`) all end in ``pi P = pi``, ``sum(pi) = 1``. The
methods, each for the chains it suits:

- :func:`stationary_dense`: replace one balance equation by the
  normalisation and solve, O(k^3); up to a few thousand states;
- :func:`stationary_sparse`: the same with SciPy's sparse LU;
- :func:`stationary`: dense up to ``DENSE_STATES``, sparse above;
- :func:`stationary_power`: power iteration on the lazy chain (I + P)/2,
  O(iterations x nonzeros), for chains whose LU fills in badly but which mix fast;
- :func:`closed_class_rate`: a long-run reward rate of a chain with several
  closed classes (each solved, weighted by its absorption probability);
- :func:`rational_stationary_rate`: the exact rate in fractions, Gauss-Jordan,
  O(k^3) fraction operations (small chains);
- :func:`skip_free_stationary`: chains that move down at most one state per
  step (the M/G/1-type finite queue), by the cut equations in O(k L).

SciPy is imported only by the sparse methods.

Examples
--------
>>> import numpy as np
>>> p = np.array([[0.5, 0.5], [0.25, 0.75]])
>>> stationary(p).round(6).tolist()
[0.333333, 0.666667]
>>> stationary_power(__import__("scipy.sparse", fromlist=["csr_matrix"]).csr_matrix(p)).round(6).tolist()
[0.333333, 0.666667]
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["stationary", "stationary_dense", "stationary_sparse", "stationary_power", "closed_class_rate",
           "rational_stationary_rate", "skip_free_stationary", "DENSE_STATES"]

DENSE_STATES = 3000     # dense numpy solve up to here, SciPy sparse above


def stationary_dense(p) -> np.ndarray:
    """Stationary distribution of an irreducible chain (dense transition matrix), O(k^3).

    pi (P - I) = 0 has rank k - 1: one balance equation is swapped for sum(pi) = 1.

    Examples
    --------
    >>> stationary_dense(np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
    [0.5, 0.5]
    """
    k = len(p)
    a = p.T - np.eye(k)
    a[-1] = 1.0
    b = np.zeros(k)
    b[-1] = 1.0
    return np.linalg.solve(a, b)


def stationary_sparse(matrix) -> np.ndarray:
    """The same as :func:`stationary_dense` for a SciPy sparse matrix, by sparse LU.

    Examples
    --------
    >>> from scipy.sparse import csr_matrix
    >>> stationary_sparse(csr_matrix(np.array([[0.5, 0.5], [0.25, 0.75]]))).round(6).tolist()
    [0.333333, 0.666667]
    """
    from scipy.sparse import eye, vstack
    from scipy.sparse.linalg import spsolve

    k = matrix.shape[0]
    b = np.zeros(k)
    b[-1] = 1.0
    a = (matrix.T - eye(k, format="csr")).tocsr()
    a = vstack([a[:-1], np.ones((1, k))]).tocsc()
    return spsolve(a, b)


def stationary(matrix) -> np.ndarray:
    """Stationary distribution of an irreducible chain: dense up to ``DENSE_STATES`` states, sparse above.

    ``matrix``: a dense array or a SciPy sparse matrix.

    Examples
    --------
    >>> stationary(np.array([[1.0]])).tolist()
    [1.0]
    """
    k = matrix.shape[0]
    if k == 1:
        return np.ones(1)
    if k <= DENSE_STATES:
        dense = matrix if isinstance(matrix, np.ndarray) else matrix.toarray()
        return stationary_dense(dense)
    return stationary_sparse(matrix)


def stationary_power(p, tol: float = 1e-13, max_iter: int = 100_000) -> np.ndarray:
    """Stationary vector of an irreducible sparse stochastic matrix by power iteration on (I + P)/2.

    The lazy chain has the same stationary vector and is aperiodic, so the
    iteration converges; it stops when a step moves less than ``tol`` in L1.
    Cost O(iterations x nonzeros): for chains whose sparse LU fills in badly
    (15k window classes took minutes) but which mix in a few hundred steps.
    """
    pt = p.T.tocsr()
    x = np.full(p.shape[0], 1.0 / p.shape[0])
    for _ in range(max_iter):
        y = 0.5 * (x + pt @ x)
        y /= y.sum()
        if np.abs(y - x).sum() < tol:
            return y
        x = y
    raise RuntimeError(f"power iteration did not converge in {max_iter} steps")


def closed_class_rate(rows, rates, start) -> tuple[float, int, bool]:
    """Long-run reward per step of a chain from a start distribution: (rate, closed classes, all equal).

    ``rows[i]``: {j: P(i -> j)}; ``rates[i]``: the reward in state i;
    ``start``: {i: probability}. Each closed class is solved on its own
    (:func:`stationary`); classes with different rates are weighted by the
    chance of ending in each from ``start`` (power iteration, removing mass
    as it reaches a closed class).

    Examples
    --------
    >>> closed_class_rate([{0: 0.5, 1: 0.5}, {0: 1.0}], [1.0, 0.0], {0: 1.0})
    (0.6666666666666667, 1, True)
    """
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
    values = [float(stationary(matrix[idx][:, idx]) @ rates[idx]) for idx in classes]
    if len(classes) == 1 or max(values) - min(values) < 1e-12:
        return values[0], len(classes), True
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


def rational_stationary_rate(rows, rates) -> Fraction:
    """Exact long-run reward of an irreducible chain with Fraction transitions, by Gauss-Jordan.

    O(k^3) fraction operations: for chains of tens of states.

    Examples
    --------
    >>> rational_stationary_rate([{0: Fraction(1, 2), 1: Fraction(1, 2)}, {0: Fraction(1)}], [1, 0])
    Fraction(2, 3)
    """
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


def skip_free_stationary(a: np.ndarray, tail: np.ndarray, b: int) -> np.ndarray:
    """Stationary distribution on 0..b of Q' = min(max(0, Q - 1) + A, b), A ~ ``a``, by the cut equations.

    ``tail[x] = P(A > x)`` (zero from ``len(tail)`` on). The flow up across
    the cut between j and j + 1 equals the flow down, one step at a time, so
    u[j + 1] = (u[0] tail[j] + sum_{i=1..j} u[i] tail[j + 1 - i]) / a[0]:
    O(b L), no linear system.

    Examples
    --------
    >>> a = np.array([0.5, 0.5])              # A is 0 or 1: from state 2 the queue never returns
    >>> skip_free_stationary(a, 1 - np.cumsum(a), 2).round(4).tolist()
    [0.5, 0.5, 0.0]
    """
    u = np.zeros(b + 1)
    if a[0] == 0.0:                    # only one arrival every step: Q = 1 forever
        u[1] = 1.0
        return u
    L = len(tail)
    u[0] = 1.0
    for j in range(b):
        s = u[0] * tail[j] if j < L else 0.0
        lo = max(1, j + 2 - L)
        if lo <= j:
            s += float(np.dot(u[lo:j + 1], tail[j + 1 - lo:0:-1]))
        u[j + 1] = s / a[0]
    return u / u.sum()
