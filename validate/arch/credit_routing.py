"""Routing one hop ahead on credits, in the fat trees of crosspoint-buffered switches (paper 003 §2).

A packet's sender (a switch output or a node's NIC) holds the credits of
the crosspoint buffers at the next switch, so it must know the output a
packet will take there before sending it. Where the route is fixed (going
down a tree) that output is the route's; where it offers a choice (going
up) the sender takes the candidate port with the most credits, ties at
random (adaptive routing on credits), or any candidate with a credit
(oblivious). A multicast packet forks where its destinations' routes part
and needs a credit at every port it enters. The routes are a topology's
tables (:mod:`switchq.models.topology`): ``tab.route[s, d]`` names the group
of candidate ports, ``tab.groups[s, g]`` its mask.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K

__all__ = ["candidates", "needs", "grant"]


@njit(cache=True, inline="always")
def candidates(s, d, tab):
    """The ports a packet for node ``d`` may take at switch ``s``."""
    return tab.groups[s, tab.route[s, d]]


@njit(cache=True)
def needs(s, lo, hi, m_dest, mid, tab):
    """What a packet carrying destinations ``m_dest[mid, lo:hi]`` needs at switch ``s``.

    The mask of the ports their routes take there if every route is fixed
    (one port); if a route offers a choice, its candidate ports inverted
    (``~candidates``, negative): the packet climbs through one of them.
    """
    mask = np.int64(0)
    for a in range(lo, hi):
        g = candidates(s, m_dest[mid, a], tab)
        if g & (g - 1):
            return ~g
        mask |= g
    return mask


@njit(cache=True)
def grant(x0, need, credits, oblivious):
    """Take the credits a packet needs at the crosspoints ``x0 + port`` of its next switch.

    Returns the mask of ports it will enter there, or 0 if it must wait.
    With a choice (``need < 0``: the candidates ``~need``) it takes the
    candidate port with the most credits, ties at random, or (``oblivious``)
    any candidate with a credit, at random.
    """
    if need < 0:
        best = -1
        best_c = 0
        ties = 0
        m = ~need
        while m:
            u = K.lowest_bit(m)
            m &= m - 1
            c = credits[x0 + u]
            if oblivious and c > 0:
                c = 1
            if c > best_c:
                best, best_c, ties = u, c, 1
            elif c == best_c and c > 0:
                ties += 1
                if np.random.random() * ties < 1.0:
                    best = u
        if best < 0:
            return np.int64(0)
        credits[x0 + best] -= 1
        return np.int64(1) << best
    m = need
    while m:
        p = K.lowest_bit(m)
        if credits[x0 + p] < 1:
            return np.int64(0)
        m &= m - 1
    m = need
    while m:
        p = K.lowest_bit(m)
        credits[x0 + p] -= 1
        m &= m - 1
    return need
