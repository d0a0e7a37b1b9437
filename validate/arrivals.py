"""Arrival, destination and size laws: the one place every simulation kernel draws its traffic from.

The laws of the papers' sources, each a scalar ``@njit(inline="always")``
rule that allocates nothing, so a kernel's slot loop pays no call for it:

- Bernoulli: a cell (or a burst's start) in a slot with probability p
  (paper 000 §2, paper 002 §5, paper 003 §3);
- Poisson: a Poisson number of packets a slot (paper 003 §3.1's sources,
  slotted), or Poisson starts in continuous time counted in the cycle they
  fall in (paper 000 §3's message sources);
- bursts (on/off): geometric bursts of mean 1 / p_end to one destination,
  idle periods between them (paper 002 §5's bursty traffic);
- the regulator: message k of a video frame at ``floor(k x spacing)``
  cycles after the frame's start (paper 004 §IV-B.1);
- packet sizes: fixed, uniform, bimodal, and bimodal with long packets sent
  as trains (paper 001 §7).

Every rule draws from Numba's generator (seeded once per replication by
``kernel.seed_rng``), and draws nothing where the outcome is certain, so a
seed fixes the whole run. :func:`traffic_arrays` turns a switch's traffic
description into the arrays :func:`draw_arrivals` reads, outside the loop.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

__all__ = ["TrafficArrays", "traffic_arrays", "bernoulli", "slot_count", "start_gap", "regulator_offset",
           "packet_size", "draw_index", "draw_destination", "draw_arrivals"]

# Arrival process and destinations of a switch's traffic (see traffic_arrays).
TrafficArrays = namedtuple("TrafficArrays", "p_start p_end kind perm cdf")

# Destination kinds: the one numbering every kernel uses.
DEST_UNIFORM = 0        # any output (or, on a network, any other node), uniformly
DEST_PERMUTATION = 1    # perm[source]
DEST_MATRIX = 2         # row `source` of a destination CDF
DEST_MULTICAST = 3      # a set: size from a fanout law, uniform given its size

# Packet size laws (packet_size).
SIZE_FIXED, SIZE_UNIFORM, SIZE_BIMODAL, SIZE_TRAIN = 0, 1, 2, 3


@njit(cache=True, inline="always")
def bernoulli(p):
    """One Bernoulli trial of probability ``p``; nothing is drawn when ``p >= 1`` (a saturated source)."""
    return p >= 1.0 or np.random.random() < p


@njit(cache=True, inline="always")
def slot_count(rate, poisson):
    """Packets a source gets in one slot: a Poisson number of mean ``rate`` (``poisson``), else Bernoulli (0 or 1)."""
    if poisson:
        return np.random.poisson(rate)
    return 1 if bernoulli(rate) else 0


@njit(cache=True, inline="always")
def start_gap(p, poisson):
    """Cycles to the next message start: exponential (Poisson starts, mean p per cycle, in continuous time,
    counted in the cycle they fall in), or geometric on 1, 2, ... (Bernoulli starts with probability p).

    One uniform draw, none when Bernoulli starts are certain (``p >= 1``): the rule of the flit kernel's
    message sources, draw for draw.
    """
    if poisson:
        return -np.log(1.0 - np.random.random()) / p
    if p >= 1.0:
        return 1.0
    return 1.0 + np.floor(np.log(1.0 - np.random.random()) / np.log(1.0 - p))


@njit(cache=True, inline="always")
def regulator_offset(k, spacing):
    """Cycles from a frame's start to its message ``k``: ``floor(k x spacing)``, the 1e-9 keeping it exact
    where the product lands a hair below a whole cycle (no draw: the regulator is deterministic).

    >>> [regulator_offset(k, 1875.5) for k in range(3)]
    [0, 1875, 3751]
    """
    return int(k * spacing + 1e-9)


@njit(cache=True, inline="always")
def packet_size(kind, a, b, p_long, train):
    """A packet's bytes and whether it is long: ``a`` (fixed), uniform on ``a..b``, or bimodal (``b`` with
    probability ``p_long``, else ``a``), a long packet of a ``SIZE_TRAIN`` law going as ``train`` packets of
    ``b // train`` (the caller sends the rest of the train)."""
    if kind == SIZE_FIXED:
        return a, False
    if kind == SIZE_UNIFORM:
        return a + np.int64(np.random.random() * (b - a + 1)), False
    if np.random.random() < p_long:
        return b // train, True
    return a, False


@njit(cache=True, inline="always")
def draw_index(cdf, last):
    """An index drawn from the law whose cumulative distribution is ``cdf``, the ones above ``last`` folded
    into ``last`` (a priority class, a fanout): the first k with cdf[k] > u, by a linear scan (short laws)."""
    u = np.random.random()
    k = 0
    while k < last and cdf[k] <= u:
        k += 1
    return k


@njit(cache=True, inline="always")
def draw_destination(i, kind, perm, cdf, n_ports):
    """Output port of a new cell (or burst) from input ``i``."""
    if kind == DEST_UNIFORM:
        # Scaling a uniform float is several times cheaper than randint in Numba.
        return int(np.random.random() * n_ports)
    if kind == DEST_PERMUTATION:
        return perm[i]
    # Inverse-CDF by bisection on row i; written out because slicing a row
    # in the hot loop costs more than the search.
    u = np.random.random()
    lo = 0
    hi = n_ports - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if cdf[i, mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, inline="always")
def draw_node(src, nodes, any_node):
    """A destination node drawn uniformly for a message from node ``src``: over all ``nodes`` (``any_node``), or
    over the others (one draw over ``nodes - 1``, skipping ``src``). The flit kernels' one rule: the cut-through
    BMIN's messages and the wormhole router's best effort draw alike.

    Examples
    --------
    >>> from numba import njit
    >>> @njit
    ... def draws(src, k):
    ...     np.random.seed(1)
    ...     return [draw_node(src, 4, False) for _ in range(k)]
    >>> 2 in draws(2, 200), sorted(set(draws(2, 200)))
    (False, [0, 1, 3])
    """
    if any_node:
        return int(np.random.random() * nodes)
    dest = int(np.random.random() * (nodes - 1))
    return dest + 1 if dest >= src else dest


@njit(cache=True)
def draw_arrivals(arrivals, burst_dest, tr, n_ports):
    """Fill ``arrivals[i]`` with the destination of the cell arriving at input i this slot (-1: none).

    ``burst_dest[i]`` is the destination of the burst in progress (-1: idle).
    An idle source starts a burst with probability ``tr.p_start``; after each
    cell the burst ends with probability ``tr.p_end`` = 1 / mean_burst.
    Bernoulli traffic is the case p_end = 1, p_start = load. One call per
    slot fills all inputs, so the per-input work is a tight loop with no
    call overhead.
    """
    p_start = tr.p_start
    p_end = tr.p_end
    kind = tr.kind
    if p_end >= 1.0 and kind == DEST_UNIFORM:
        # The common case, Bernoulli and uniform, kept branch-light.
        for i in range(n_ports):
            arrivals[i] = int(np.random.random() * n_ports) if bernoulli(p_start) else -1
        return
    for i in range(n_ports):
        d = burst_dest[i]
        if d < 0:
            if not bernoulli(p_start):
                arrivals[i] = -1
                continue
            d = draw_destination(i, kind, tr.perm, tr.cdf, n_ports)
        burst_dest[i] = -1 if bernoulli(p_end) else d
        arrivals[i] = d


def traffic_arrays(traffic, n_ports) -> TrafficArrays:
    """Plain arrays and scalars describing ``traffic`` for the kernels (see :func:`draw_arrivals`)."""
    from switchq.models.traffic import PERMUTATIONS

    p_end = 1.0 / traffic.mean_burst
    load = traffic.load
    if load >= 1.0:
        p_start = 1.0
    else:
        # Idle periods of mean B (1 - load) / load slots keep the long-run rate at load.
        p_start = load / (load + traffic.mean_burst * (1.0 - load))
    perm = np.zeros(n_ports, dtype=np.int64)
    cdf = np.ones((1, 1))
    if traffic.pattern == "uniform":
        kind = DEST_UNIFORM
    elif traffic.pattern in PERMUTATIONS:
        kind = DEST_PERMUTATION
        perm = traffic.permutation(n_ports).astype(np.int64)
    else:
        kind = DEST_MATRIX
        cdf = np.cumsum(traffic.destination_matrix(n_ports), axis=1)
        cdf[:, -1] = 1.0  # guard against rounding leaving the last bin short
    return TrafficArrays(p_start=float(p_start), p_end=float(p_end), kind=kind, perm=perm, cdf=cdf)
