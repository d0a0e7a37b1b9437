"""An InfiniBand virtual lane with credit flow control, byte by byte: the twin of ``switchq size infiniband``.

IBA Vol. 1 §7.9 and paper 002 §2.3 (credit flow control). A slot is one
byte time. The sender always has packets (MTU + 26 B of headers) and sends
one only when it holds credits for all of its 64-byte blocks; a byte sent in
slot t reaches the receiver in slot t + L (cable and half the fixed delay).
The receiver forwards at link rate at once, freeing a block as its last byte
arrives (a packet's last block when the packet ends), and returns each freed
block as a credit in a flow-control packet that takes 6 byte times to send
and L to arrive. Nothing is ever lost: a buffer below the round trip costs
throughput instead.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from switchq.models.pfc_standard import IB_BLOCK_BYTES, IB_FC_PACKET_BYTES, IB_HEADER_BYTES

from .. import kernel as K

LAYOUT = K.Layout(("stalled",))    # measured slots the sender waited for credits with a packet ready
(STALLED,) = (LAYOUT.index(n) for n in LAYOUT.names[K.N_CORE:])

IbArgs = namedtuple("IbArgs", "packet blocks delay credit_delay credits")
BLOCK = IB_BLOCK_BYTES     # a credit frees one 64-byte block


@njit(cache=True)
def _run_ib(a, run, stats):
    warmup = run.warmup
    size = K.pow2_at_least(a.delay + a.credit_delay + 2)
    mask = size - 1
    wire = np.zeros(size, dtype=np.int8)       # bytes reaching the receiver in slot t: 1, or 2 for a block's last
    returned = np.zeros(size, dtype=np.int64)  # credits (blocks) reaching the sender in slot t
    credits = a.credits
    left = 0                                   # bytes left of the packet being sent
    for t in range(warmup + run.slots):
        K.mark_batch(stats, t, run)
        measured = t >= warmup
        credits += returned[t & mask]
        returned[t & mask] = 0
        if left == 0:
            if credits >= a.blocks:
                credits -= a.blocks
                left = a.packet
            elif measured:
                stats[STALLED] += 1
        if left > 0:
            sent = a.packet - left                 # bytes of this packet before this one
            last = (sent + 1) % BLOCK == 0 or left == 1
            wire[(t + a.delay) & mask] = 2 if last else 1
            left -= 1
            if measured:
                stats[K.STAT_M_OFFERED] += 1
        code = wire[t & mask]
        if code:
            wire[t & mask] = 0
            stats[K.STAT_ARRIVED] += 1
            stats[K.STAT_DELIVERED] += 1       # forwarded at link rate as it arrives
            if measured:
                stats[K.STAT_M_DELIVERED] += 1
            if code == 2:
                returned[(t + a.credit_delay) & mask] += 1
    stats[K.STAT_QUEUED] = 0


def args_for(vl):
    """The kernel's arguments from a :class:`~switchq.models.pfc.CreditLink`: its credit round trip (whole byte
    times, the 6-byte credit packet included) split between the data and the credit direction."""
    packet = vl.link.mtu_bytes + IB_HEADER_BYTES
    delay = (vl.round_trip_bytes - IB_FC_PACKET_BYTES) // 2
    return IbArgs(packet=packet, blocks=-(-packet // BLOCK), delay=delay, credit_delay=vl.round_trip_bytes - delay,
                  credits=vl.buffer_bytes // BLOCK)


def replicate(vl, saturated, run):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``)."""
    stats = LAYOUT.zeros(run)
    _run_ib(args_for(vl), run, stats)
    return stats
