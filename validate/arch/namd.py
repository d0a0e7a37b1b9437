"""The NAMD-like multicast benchmark on a fat tree (paper 003 §4, Figures 17-18).

"P/16 processors multicast data to random destinations with an average
fanout of 16": one round in which P/16 random senders each multicast a
message of ``message_bytes`` to a random set of other nodes, either with
hardware multicast (one copy of each packet enters the network and the
switches replicate it along the spanning tree) or with point-to-point
messages (the sender's NIC sends one message per destination).

Timing (Table 1): a sender spends ``nic_send_ns`` on each message, one
message after the other, so message j (from 0) may start leaving at
(j + 1) * nic_send_ns (the first slot boundary after it) while earlier
messages are still on the wire; a point-to-point multicast to F nodes
pays the overhead F times. A receiver spends ``nic_recv_ns`` on each
message once its last packet has arrived, one message after the other.
The round completes when the last receiver is done. Packets move
through :func:`switchq.validate.network.run_batch`; a message of B bytes is
ceil(B / packet_bytes) packets, each a full slot on a link.

Each replication draws new senders and destination sets (sizes from the
fanout law over the other nodes, sets uniform given their size); figures
are means over replications with a 95 % Student-t interval.
"""

from __future__ import annotations

import math

import numpy as np

from switchq.models.fanout import fanout_pmf

from .. import kernel as K

__all__ = ["replicate", "namd_round", "LAYOUT"]

# One number per replication: when the last receiver is done with its last message, in ns.
LAYOUT = K.Layout(("completion_ns",), core=False)


def namd_round(net, message_bytes: int, multicast: str, senders: int, fanout: float,
               fanout_distribution: str, seed: int) -> float:
    """Completion time (ns) of one round with the senders and sets drawn from ``seed``.

    Examples
    --------
    >>> from switchq.models.network import FatTreeNetwork
    >>> net = FatTreeNetwork.for_nodes(16, 8)
    >>> namd_round(net, 256, "hardware", 1, 15, "fixed", 1) < namd_round(net, 256, "software", 1, 15, "fixed", 1)
    True
    """
    from .network import run_batch

    timing = net.timing
    nodes = net.tree.nodes
    rng = np.random.default_rng(seed)
    pmf = fanout_pmf(nodes - 1, fanout, fanout_distribution)
    packets = max(1, math.ceil(message_bytes / timing.packet_bytes))
    src, ready, dests, message = [], [], [], []   # per packet; message = (sender, receiver or -1)
    n_messages = 0
    for v in rng.choice(nodes, size=senders, replace=False):
        others = np.delete(np.arange(nodes), v)
        group = sorted(int(d) for d in rng.choice(others, size=rng.choice(nodes, p=pmf), replace=False))
        lists = [group] if multicast == "hardware" else [[d] for d in group]
        for j, members in enumerate(lists):
            n_messages += 1
            for _ in range(packets):
                src.append(int(v))
                # Overheads add up in ns; the message may leave from the first slot after its own.
                ready.append(math.ceil((j + 1) * timing.nic_send_ns / timing.packet_ns - 1e-9))
                dests.append(members)
                message.append(n_messages - 1)
    deliveries, log, _ = run_batch(net, src, ready, dests, seed=seed)
    if (deliveries < 0).any():
        raise RuntimeError("NAMD round did not drain")  # cannot happen with credits: no deadlock on a tree
    # A message is at a receiver when its last packet is; receivers then handle messages in arrival order.
    message = np.asarray(message)
    arrived: dict = {}
    for b, node, slot in log:
        key = (int(message[b]), int(node))
        arrived[key] = max(arrived.get(key, 0), int(slot))
    per_receiver: dict = {}
    for (_, node), slot in arrived.items():
        per_receiver.setdefault(node, []).append(slot * timing.packet_ns)
    done = 0.0
    for times in per_receiver.values():
        busy = 0.0
        for at in sorted(times):
            busy = max(busy, at) + timing.nic_recv_ns
        done = max(done, busy)
    return done


def replicate(net, workload, run) -> np.ndarray:
    """One round of ``workload`` (a :class:`~switchq.models.namd.NamdRound`) drawn from ``run.seed``;
    returns its counters (``LAYOUT``: the completion time in ns)."""
    w = workload
    return np.array([namd_round(net, w.message_bytes, w.multicast, w.senders, w.fanout, w.fanout_distribution,
                                run.seed)])
