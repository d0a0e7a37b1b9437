"""A sender's view of the buffer behind a channel in the iq router network (issue 38): BookSim2's BufferState and
its private or shared buffer policy (``src/buffer_state.cpp``), over the packed records of
:mod:`switchq.validate.arch.iq_router_state`. Used by the routers (:mod:`.iq_router_phases`) and the traffic
manager (:mod:`.iq_router_nodes`), which send into their neighbours' buffers the same way.
"""

from __future__ import annotations

from numba import njit

from .iq_router_state import (O_OCC, O_OWNER, O_POCC, O_RES, O_TAIL)


# --- A sender's view of the buffer behind its channel (BookSim2's BufferState and its buffer policy), for an
# output VC's column j of ``vcs`` and the channel's row x of ``port``. Private: ``depth`` flits a VC. Shared
# (SharedBufferPolicy, one private region per VC): a flit takes a slot reserved for its VC, else a private one,
# else a shared one; a credit that empties a VC still held by a packet keeps its slot reserved for that packet
# until its tail is sent.


@njit(cache=True, inline="always")
def _full(vcs, port, net, j, x):
    """BookSim2's IsFullFor: no room behind channel x for another flit of VC j."""
    if net.shared == 0:
        return vcs[O_OCC, j] >= net.depth
    return vcs[O_RES, j] == 0 and vcs[O_POCC, j] >= net.priv and port[x, net.c_sh] >= net.shsize


@njit(cache=True, inline="always")
def _free_slot(vcs, port, net, j, x):
    """The shared policy's ProcessFreeSlot: a slot of VC j's region back, a shared one if it had spilled."""
    vcs[O_POCC, j] -= 1
    if vcs[O_POCC, j] >= net.priv:
        port[x, net.c_sh] -= 1


@njit(cache=True, inline="always")
def _sending(vcs, port, net, j, x, tail):
    """BookSim2's SendingFlit: a flit sent on VC j; a tail frees the VC unless wait_for_tail_credit holds it."""
    vcs[O_OCC, j] += 1
    if net.shared == 1:
        if vcs[O_RES, j] > 0:
            vcs[O_RES, j] -= 1
        else:
            vcs[O_POCC, j] += 1
            if vcs[O_POCC, j] > net.priv:
                port[x, net.c_sh] += 1
        if tail:
            while vcs[O_RES, j] > 0:
                vcs[O_RES, j] -= 1
                _free_slot(vcs, port, net, j, x)
    if tail:
        vcs[O_TAIL, j] = 1
        if not net.wait_tail:
            vcs[O_OWNER, j] = -1


@njit(cache=True, inline="always")
def _credited(vcs, port, net, j, x, k):
    """BookSim2's ProcessCredit, ``k`` credits of VC j: with wait_for_tail_credit the tail's frees the VC."""
    if net.shared == 0:
        vcs[O_OCC, j] -= k
        if net.wait_tail and vcs[O_OCC, j] == 0 and vcs[O_TAIL, j] == 1:
            vcs[O_OWNER, j] = -1
            vcs[O_TAIL, j] = 0
        return
    for _ in range(k):
        vcs[O_OCC, j] -= 1
        if net.wait_tail and vcs[O_OCC, j] == 0 and vcs[O_TAIL, j] == 1:
            vcs[O_OWNER, j] = -1
            vcs[O_TAIL, j] = 0
        if vcs[O_OWNER, j] >= 0 and vcs[O_OCC, j] == 0:
            vcs[O_RES, j] += 1                 # FreeSlotFor: kept for the packet holding the VC
        else:
            _free_slot(vcs, port, net, j, x)
