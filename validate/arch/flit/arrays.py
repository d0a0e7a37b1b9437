"""The cut-through kernel's arrays, made once per replication, and what each holds (paper 000 §3-§5).

The kernels unpack them once, before their cycle loop: an array read from a record inside the loop, or passed
to a helper there, costs Numba reference counting. Each function returns fresh arrays in a fixed order.

Paper 000 (:mod:`.cut_through`): queues are numbered by what they hold, a pair (or input) queue (input gi,
output o) at ``gi * k + o``, a central queue (switch s, output o) at ``n_in k + s * k + o``, node v's
injection queue at ``n_in (k + 1) + v``. Paper 004's routers (:mod:`.vc`) keep theirs as the packed records of
:mod:`.vc_state`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import kernel as K
from .records import I_LAST, IW, LK_E, LKW, QW


@njit(cache=True)
def switch_arrays(n_sw, nodes, sw):
    """Per queue, input buffer, switch and link of a paper-000 network:

    - ``q_head``, ``q_tail``: a queue's first and last entry (-1: empty; linked through ``E_NEXT``), and
      ``qflits`` the flits it holds;
    - ``qst``, ``inb``: a pair queue's (HIPIQS) and an input buffer's storage state, one row each (``QW``,
      ``IW`` fields, one cache line where a flit is committed and released); ``rd_busy``: DAMQ, an input
      being read;
    - ``c_used``, ``c_up``: a central buffer's chunks taken, and taken by queues for up ports;
    - ``waiting``: FIFO, entries at a switch no output has taken yet; ``cand``: others, entries queued for an
      output, not yet taken; ``out_load``: flits queued at a switch for each of its outputs; ``nic_count``:
      packets at a node's injection queue; ``rr``: an output's round-robin pointer;
    - ``ring``: per ring slot and link, the entry (to a node: the packet, its tail as ~packet) of the flit
      arriving then; ``arr_bits``: per slot, the links with a flit arriving, 64 a word; ``act``: the links that
      may have something to do in step 4 (set when a candidate appears, cleared when an idle output finds
      none);
    - ``lk``: per output, what it is sending (``LK_*`` fields, ``LKW`` a link), read by each flit without
      going through the entries;
    - ``wake``: pair queues, an idle output that found no header ready skips arbitration until this cycle,
      when the earliest header at the head of its queues is (lowered as headers arrive; only the output's
      own tail moves a head)."""
    k = sw.k
    n_in = n_sw * k
    n_links = n_in + nodes
    qp = n_in * k
    nq = qp + n_in + nodes
    inb = np.zeros(n_in * IW, dtype=np.int64)
    for gi in range(n_in):
        inb[gi * IW + I_LAST] = -1
    ring_len = K.pow2_at_least(sw.link_delay + 1)
    n_w = (n_links + 63) >> 6
    lk = np.zeros(n_links * LKW, dtype=np.int64)
    for g in range(n_links):
        lk[g * LKW + LK_E] = -1
    return (np.full(nq, -1, dtype=np.int64), np.full(nq, -1, dtype=np.int64), np.zeros(nq, dtype=np.int64),
            np.zeros(qp * QW, dtype=np.int64), inb, np.zeros(n_in, dtype=np.int64), np.zeros(n_sw, dtype=np.int64),
            np.zeros(n_sw, dtype=np.int64), np.zeros(n_sw, dtype=np.int64), np.zeros(n_links, dtype=np.int64),
            np.zeros(n_links, dtype=np.int64), np.zeros(nodes, dtype=np.int64), np.zeros(n_links, dtype=np.int64),
            np.full(ring_len * n_links, -1, dtype=np.int64), np.zeros((ring_len, n_w), dtype=np.int64),
            np.zeros(n_w, dtype=np.int64), lk, np.zeros(n_links, dtype=np.int64))

