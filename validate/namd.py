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
import time
from dataclasses import dataclass, field

import numpy as np

from switchq.models import _check
from switchq.models.network import FatTreeNetwork

from .harness import _run_all, confidence_interval, replication_seeds

__all__ = ["MULTICAST_MODES", "NamdResult", "namd_round", "simulate_namd"]

# hardware: the switches replicate; software: the NIC sends one point-to-point message per destination.
MULTICAST_MODES = ("hardware", "software")


@dataclass(frozen=True)
class NamdResult:
    """Completion time of one benchmark round (ns), mean over replications with its 95 % interval."""

    network: FatTreeNetwork
    message_bytes: int
    multicast: str
    senders: int
    fanout: float
    fanout_distribution: str
    replications: int
    seed: int
    completion_ns: float
    completion_ns_ci95: tuple
    wall_seconds: float
    per_replication: dict = field(repr=False)

    def to_dict(self) -> dict:
        out = self.network.describe()
        out.update(message_bytes=self.message_bytes, multicast=self.multicast, senders=self.senders,
                   fanout=self.fanout, fanout_distribution=self.fanout_distribution,
                   replications=self.replications, seed=self.seed, completion_ns=self.completion_ns,
                   completion_ns_ci95=list(self.completion_ns_ci95), wall_seconds=self.wall_seconds,
                   seeds=self.per_replication["seeds"])
        return out


def namd_round(net: FatTreeNetwork, message_bytes: int, multicast: str, senders: int, fanout: float,
               fanout_distribution: str, seed: int) -> float:
    """Completion time (ns) of one round with the senders and sets drawn from ``seed``."""
    from switchq.solvers.multicast import fanout_pmf

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


def simulate_namd(net: FatTreeNetwork, message_bytes: int, multicast: str = "hardware", senders: int | None = None,
                  fanout: float = 16, fanout_distribution: str = "uniform", replications: int = 8, seed: int = 1,
                  workers: int = 1, progress: bool = False) -> NamdResult:
    """Simulate the benchmark round ``replications`` times; completion time with a 95 % interval.

    Examples
    --------
    >>> net = FatTreeNetwork.for_nodes(64, switch_ports=8)
    >>> hw = simulate_namd(net, 1024, "hardware", replications=2, seed=1)
    >>> sw = simulate_namd(net, 1024, "software", replications=2, seed=1)
    >>> hw.senders, hw.completion_ns < sw.completion_ns
    (4, True)
    """
    nodes = net.tree.nodes
    message_bytes = _check.integer("message_bytes", message_bytes, 1, 1 << 24)
    _check.choice("multicast", multicast, MULTICAST_MODES)
    senders = max(1, nodes // 16) if senders is None else _check.integer("senders", senders, 1, nodes)
    top = {"fixed": nodes - 1, "binomial": nodes - 1, "uniform": nodes / 2}[_check.choice(
        "fanout_distribution", fanout_distribution, ("fixed", "binomial", "uniform"))]
    fanout = _check.real("fanout", fanout, 1.0, top)
    replications = _check.integer("replications", replications, 2, 10**5)
    seeds = replication_seeds(_check.integer("seed", seed, 0, 2**63 - 1), replications)
    args = [(net, message_bytes, multicast, senders, fanout, fanout_distribution, s) for s in seeds]
    t0 = time.perf_counter()
    times = _run_all(args, workers, progress, f"NAMD-like round, {multicast} multicast", namd_round)
    mean, lo, hi = confidence_interval(times)
    return NamdResult(net, message_bytes, multicast, senders, fanout, fanout_distribution, replications, seed,
                      mean, (lo, hi), time.perf_counter() - t0, {"completion_ns": list(times), "seeds": seeds})
