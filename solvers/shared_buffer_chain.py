"""A small shared-memory switch's loss and occupancy, exact: the Markov chain of its queue lengths (issue 37).

The state is the vector of the N queue lengths at a slot's end (after departures), at most B cells in all:
C(B + N, N) states. A slot is N arrival steps then the departures. In each arrival step one input offers a
cell with probability p, to output d with probability pi_d (uniform: 1/N; hotspot: f to the hot port, the
rest uniform over all), and the policy admits it or not (the same rules as the model states:
``models/shared_buffer.py``); then every non-empty queue sends a cell. Inputs are independent and alike, so
the order the kernel takes them in does not change the law of a slot, and one arrival operator A applied N
times, then the departure operator D, is the slot: P = A^N D. The stationary law pi = pi P is solved by
power iteration on SciPy's sparse P.

Figures: the loss (expected drops per slot over N p; a pushout counts the cell it pushes out), the mean
queue at slot end, the carried share, and the mean wait in whole slots (Little's law on the slot-end
occupancy: a cell waiting w slots is counted at w slot ends; none under pushout, whose queues hold cells that
are pushed out rather than sent).

Cost: the states (at most ``MAX_STATES``, 200,000: N = 2 up to B = 630, N = 4 up to 44, N = 8 up to 12), each
with N + 1 moves per step; A^N D is built as a sparse product and pi found by power iteration. Measured: 4 ports
with 20 cells (10,626 states) 1.5 s, with 44 cells (194,580) 13 s, most of it enumerating states in Python.

>>> a = chain(2, 2, 256, "cs", None, 1.0)           # 2 x 2, 2 cells, saturated: see the test's hand solution
>>> round(a.loss_probability, 6)
0.25
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

from switchq.models import _check
from switchq.models.shared_buffer import SharedBufferSwitch
from switchq.models.traffic import Traffic

from .figures import figure, given

__all__ = ["ChainAnswer", "chain", "MAX_STATES", "states_count"]

MAX_STATES = 200_000
# Power iteration: stop when one more slot moves the law by under 1e-13 in L1, at most a million slots.
TOLERANCE, MAX_ITERATIONS = 1e-13, 1_000_000
SOURCE = ("exact Markov chain of the queue lengths (switchq.solvers.shared_buffer_chain): P = A^N D, "
          "Bernoulli inputs, the policy's admission rule")


@dataclass(frozen=True)
class ChainAnswer:
    n_ports: int = given("ports")
    buffer_cells: int = given("cells")
    policy: str = given()
    alpha: float | None = given("1")
    load: float = given("cells/slot/input")
    loss_probability: float = figure("1", main=True)
    mean_queue: float = figure("cells")
    carried_share: float = figure("1")
    mean_wait: float | None = figure("slots")
    states: int = figure("states")
    source: str = figure(default=SOURCE)


def states_count(n_ports: int, buffer_cells: int) -> int:
    """C(B + N, N): the queue-length vectors of N queues holding at most B cells."""
    return comb(buffer_cells + n_ports, n_ports)


def _admits(sw: SharedBufferSwitch, q, d: int) -> bool:
    """The policy's admission of a cell for queue ``d`` in state ``q`` (pushout: whether there is room)."""
    total = sum(q)
    if total >= sw.buffer_cells:
        return False
    if sw.policy == "cp":
        return q[d] < sw.partition_cells
    r = sw.reserved_cells
    if q[d] < r:
        return True
    used = sum(max(x - r, 0) for x in q)
    if used >= sw.shared_cells:
        return False
    if sw.policy == "dt":
        return q[d] - r < sw.alpha * (sw.shared_cells - used)
    if sw.policy == "st":
        return q[d] - r < sw.threshold_cells
    return True


def _arrival(sw, q, d):
    """The state after a cell for ``d`` is offered in state ``q``, and whether a cell was lost."""
    if _admits(sw, q, d):
        return q[:d] + (q[d] + 1,) + q[d + 1:], 0
    if sw.policy == "pushout" and sum(q) >= sw.buffer_cells:
        longest = max(range(len(q)), key=lambda j: (q[j], -j))     # the longest, lowest index first
        if q[longest] > q[d]:
            out = list(q)
            out[longest] -= 1
            out[d] += 1
            return tuple(out), 1
    return q, 1


def chain(n_ports: int, buffer_cells: int, cell_bytes: int, policy: str, alpha: float | None, load: float,
          threshold_cells: int | None = None, reserved_cells: int = 0, pattern: str = "uniform",
          hotspot_fraction: float = 0.0, hotspot_port: int = 0) -> ChainAnswer:
    """The stationary loss, mean queue and wait of an N-port shared-memory switch under Bernoulli traffic."""
    import numpy as np
    import scipy.sparse as sp

    sw = SharedBufferSwitch(n_ports, buffer_cells, cell_bytes, policy, 1.0 if alpha is None else alpha,
                            threshold_cells, reserved_cells)
    p = _check.real("load", load, 0.0, 1.0, low_open=True)
    n, b = sw.n_ports, sw.buffer_cells
    count = states_count(n, b)
    if count > MAX_STATES:
        raise _check.InputError("buffer_cells", b, f"at most {_largest_buffer(n)} cells with {n} ports for the "
                                                   f"exact chain ({count} states; at most {MAX_STATES})")
    pi_d = Traffic(load=p, pattern=pattern, hotspot_fraction=hotspot_fraction,
                   hotspot_port=hotspot_port).destination_matrix(n)[0]
    states = list(_vectors(n, b))
    index = {q: k for k, q in enumerate(states)}
    rows, cols, vals, loss = [], [], [], np.zeros(len(states))
    for k, q in enumerate(states):
        rows.append(k), cols.append(k), vals.append(1.0 - p)
        for d in range(n):
            if pi_d[d] == 0:
                continue
            nxt, lost = _arrival(sw, q, d)
            rows.append(k), cols.append(index[nxt]), vals.append(p * pi_d[d])
            loss[k] += p * pi_d[d] * lost
    step = sp.csr_matrix((vals, (rows, cols)), shape=(len(states), len(states)))
    dep = sp.csr_matrix((np.ones(len(states)), (np.arange(len(states)),
                                                [index[tuple(max(x - 1, 0) for x in q)] for q in states])),
                        shape=(len(states), len(states)))
    slot = dep
    for _ in range(n):
        slot = step @ slot                      # rows: from; A ... A D applied right to left to a row vector
    pi = _stationary(slot, np)
    # Drops: the law before each arrival step is pi A^k (k = 0 .. N-1), each step losing loss[] in expectation.
    law, drops = pi.copy(), 0.0
    for _ in range(n):
        drops += float(law @ loss)
        law = step.T @ law
    queue = float(sum(pi[k] * sum(q) for k, q in enumerate(states)))
    loss_p = drops / (n * p)
    carried = n * p * (1.0 - loss_p)
    # Little's law on the carried cells; under pushout some queued cells are pushed out before they are sent, so
    # the slot-end queue is not the carried cells' alone and no wait is given.
    wait = None if sw.policy == "pushout" else queue / carried
    return ChainAnswer(n, b, sw.policy, sw.alpha if policy == "dt" else None, p, loss_p, queue / n,
                       1.0 - loss_p, wait, len(states))


def _vectors(n: int, most: int):
    """Every vector of ``n`` queue lengths holding at most ``most`` cells in all, each once: C(most + n, n) of
    them, made directly (filtering all (most + 1)^n tuples costs 4e9 steps at 32 ports of one cell)."""
    if n == 1:
        for q in range(most + 1):
            yield (q,)
        return
    for q in range(most + 1):
        for rest in _vectors(n - 1, most - q):
            yield (q, *rest)


def _stationary(slot, np):
    """pi = pi P by power iteration from the uniform law, to an L1 change under ``TOLERANCE`` (the chain is
    aperiodic: the empty state returns to itself when no cell arrives, or the slot's law is a fixed point).
    Measured faster than a sparse LU by 17-70x here (10,626 states: 0.7 s against 12 s), whose fill-in grows
    with the N-step product's spread."""
    m = slot.shape[0]
    forward = slot.T.tocsr()
    pi = np.full(m, 1.0 / m)
    for _ in range(MAX_ITERATIONS):
        nxt = forward @ pi
        if np.abs(nxt - pi).sum() < TOLERANCE:
            return nxt / nxt.sum()
        pi = nxt
    raise _check.InputError("load", None, f"a chain that converges within {MAX_ITERATIONS} slots (this one mixes "
                                          "too slowly; simulate it instead)")


def _largest_buffer(n_ports: int) -> int:
    b = 1
    while states_count(n_ports, b + 1) <= MAX_STATES:
        b += 1
    return b
