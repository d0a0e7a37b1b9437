"""The fat-tree network kernel's state (paper 003, Kumar, Kale & Stunkel §2-§4): counters, sizes, records.

:mod:`switchq.validate.arch.network` runs the slots; :mod:`switchq.validate.arch.network_phases` holds the
steps of a slot. They share what is here: the counter layout, the routing codes, the sizes and flags the
phases read (:data:`Dims`) and the packed arrays they read and write (:func:`new_state`: a NetState, a few
int64 arrays with named rows), so a phase takes one record and unpacks the few arrays it needs.

Why records: a phase taking the state as ~67 separate arrays, each a reference count at every entry, made
the slot 8-10 % slower at light load; these few records keep it within 4 % (:mod:`.network_phases`).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .. import kernel as K

LAYOUT = K.Layout(("copies", "m_copies", "copies_owed", "m_copies_owed", "backlog_start", "backlog_end",
                   "credits_out"))
# copies_owed: destinations of the packets offered (m_: while measuring). backlog_start, backlog_end:
# copies owed and not yet delivered, wherever they are (NICs, crosspoint buffers, links), when measuring
# starts and when it ends.
COPIES, M_COPIES, COPIES_OWED, M_COPIES_OWED, BACKLOG_START, BACKLOG_END, CREDITS_OUT = (
    LAYOUT.index(name) for name in ("copies", "m_copies", "copies_owed", "m_copies_owed", "backlog_start",
                                    "backlog_end", "credits_out"))

# How a packet picks among candidate ports: most credits; at random among those with a credit; or a
# route fixed at the source (a random route word, or d-mod-k: the destination as the route word).
ROUTINGS = {"adaptive": 0, "random": 1, "source": 2, "dmodk": 3}
ADAPTIVE, RANDOM, SOURCE, DMODK = (ROUTINGS[r] for r in ("adaptive", "random", "source", "dmodk"))

# Packets a NIC's send queue holds; reaching it means the offered load exceeds what the network
# carries (the harness then flags the run unstable, as kernel.UNBOUNDED_CELLS does for a switch).
NIC_QUEUE_PACKETS = 1 << 10

# Sizes and flags: crosspoint cells q, link and credit delays ld, cd (slots), the rings lr, cr and crosspoint
# FIFOs qc (powers of two), switch ports, nodes, switch outputs n_out, links n_links (switch outputs, then one
# per NIC), crosspoints n_xp, NIC queue capacity, copies (and arrival groups) in flight at most n_pk; and the
# routing: oblivious (random among candidates with a credit), source (a route word fixed at the source, a
# random node when source_random, else the first destination: d-mod-k, the usual InfiniBand fat-tree routing).
Dims = namedtuple("Dims", "q ld cd lr cr qc ports nodes n_out n_links n_xp nic_cap n_pk oblivious source "
                          "source_random")

# The state: a few int64 arrays, each a record of named rows (``pool[C_MSG, cid]``).
# pool (row, k): copies and arrival groups, one column each (both pools have n_pk places). A copy's message,
# the slice [lo, hi) of its message's destinations, its arrival slot at this switch, what it needs at the
# next switch (credit_routing.needs: a port mask, or ~candidates for a choice), the ports granted it there,
# its arrival group. A group's copies left in the switch, the ports they entered, the first crosspoint of
# their row. Rows C_FREE and G_FREE are the pools' free stacks (entry k, not a field of column k); their
# tops live in the cycle loop as plain integers (c_top, g_top), passed to and returned by the phases.
C_MSG, C_LO, C_HI, C_T, C_NEED, C_NEXT, C_GRP, C_FREE, G_LEFT, G_MASK, G_X0, G_FREE = range(12)
# msgs (row, mid): birth (or batch ready) slot, destinations, route word, copies still to deliver; M_FREE
# the free stack (top m_top). dest[mid, :n]: the message's destinations, sorted.
M_BIRTH, M_N, M_ROUTE, M_LEFT, M_FREE = range(5)
# xs (row, x) per crosspoint x = (switch * ports + input) * ports + output port: its FIFO's head and length
# (the copy ids in xq[x]), the credits its sender upstream holds for it; row OCCUPIED (row, o) per switch
# output o = switch * ports + port: its non-empty crosspoints.
XP_HEAD, XP_LEN, CREDITS, OCCUPIED = range(4)
# nics (row, v) per node: its send queue's head and length (message ids in nic_q[v]), and a scratch row (the
# multicast set shuffle).
NIC_HEAD, NIC_LEN, SCRATCH = range(3)
# link[g, slot & (lr - 1)]: the copy on link g (switch output g, or NIC g - n_out) arriving at its switch in
# that slot, or -1. ring[r, 0]: how many crosspoints' credits come back in the slots r names (modulo cr);
# ring[r, 1:1 + ring[r, 0]]: those crosspoints.
NetState = namedtuple("NetState", "pool msgs dest xs xq nics nic_q link ring")


def nic_capacity(batch_src, nodes):
    """Packets a NIC queue holds: NIC_QUEUE_PACKETS, doubled until the busiest batch sender's packets fit."""
    nic_cap = NIC_QUEUE_PACKETS
    if len(batch_src) > 0:
        while nic_cap < np.bincount(batch_src, minlength=nodes).max():
            nic_cap *= 2
    return nic_cap


def dims(q, ld, cd, routing, ports, n_sw, nodes, nic_cap):
    """The :data:`Dims` of a network of ``n_sw`` switches of ``ports`` ports and ``nodes`` NICs."""
    n_out = n_sw * ports
    lr = K.pow2_at_least(ld + 1)
    # Copies in crosspoints are bounded by the credits, copies on links by one per link per slot.
    n_pk = n_out * ports * q + (n_out + nodes) * lr + nodes
    return Dims(q=q, ld=ld, cd=cd, lr=lr, cr=K.pow2_at_least(cd + 1), qc=K.pow2_at_least(q),
                ports=ports, nodes=nodes, n_out=n_out, n_links=n_out + nodes, n_xp=n_out * ports, nic_cap=nic_cap,
                n_pk=n_pk,
                oblivious=routing == RANDOM, source=routing == SOURCE or routing == DMODK,
                source_random=routing == SOURCE)


@njit(cache=True, inline="always")
def new_state(d, n_msg, f_cap):
    """An idle network (pools free, credits home, links empty): the NetState for ``d`` (Dims), with room for
    ``n_msg`` messages of ``f_cap`` destinations."""
    n_pk = d.n_pk
    pool = np.zeros((12, n_pk), dtype=np.int64)
    pool[C_FREE] = np.arange(n_pk)[::-1]
    pool[G_FREE] = np.arange(n_pk)[::-1]
    msgs = np.zeros((5, n_msg), dtype=np.int64)
    msgs[M_FREE] = np.arange(n_msg)[::-1]
    xs = np.zeros((4, d.n_xp), dtype=np.int64)
    xs[CREDITS] = d.q
    ring = np.zeros((d.cr, d.n_xp + 1), dtype=np.int64)
    return NetState(pool=pool, msgs=msgs, dest=np.zeros((n_msg, f_cap), dtype=np.int64), xs=xs,
                    xq=np.zeros((d.n_xp, d.qc), dtype=np.int64), nics=np.zeros((3, d.nodes), dtype=np.int64),
                    nic_q=np.zeros((d.nodes, d.nic_cap), dtype=np.int64),
                    link=np.full((d.n_links, d.lr), -1, dtype=np.int64), ring=ring)
# Where a batch's results go: deliveries[b] the slot batch packet b reached its last destination, log[c] the
# packet, node and slot of the c-th copy delivered; batched: whether this run is a batch.
Output = namedtuple("Output", "deliveries log batched")
