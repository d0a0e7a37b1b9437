"""Analytic answers for flit-level switches and BMINs (paper 000 §3-§5): latency, bounds, HOL, sharing, cost.

What can be said without simulating the network of :mod:`switchq.models.flit`:

- :func:`zero_load_latency`: a message alone in the network, exactly as the
  kernel moves it: a header crosses each switch in ``bypass_cycles`` (Fig. 5,
  Pipe 1) and each link in ``link_delay``; the tail follows M - 1 cycles
  behind (packets of a message stream back to back, so packetisation adds
  nothing at zero load). Averaged over the pattern's source/destination
  pairs with the route lengths of turnaround routing (h = 2 l + 1 switches
  when the least common ancestor is on level l).
- :func:`saturation_bound`: the channel-load bound. Each flow (source,
  destination) of the pattern at one unit of load is spread evenly over its
  up-port choices (the fluid limit of adaptive up-routing) and follows its
  unique down path; the bound is 1 / the heaviest channel's load, capped by
  the injection and ejection links at 1.
- :func:`fifo_saturation`: FIFO input queuing's head-of-line limit on one
  k-port switch, by Karol's saturated chain (:mod:`switchq.solvers.hol`). The
  chain is exact for single-flit messages; for M-flit messages it assumes
  every output frees at once (message-slotted operation), which an
  asynchronous cut-through switch does not do: the error is measured by the
  simulator, not assumed.
- :func:`buffer_sharing`: complete sharing vs complete partitioning of one
  input buffer among k output queues (Kamoun & Kleinrock 1980): k independent
  M/M/1 queues of load rho each, sharing ``B`` message places (product form
  truncated at B; :func:`message_places` counts them, one at least) or
  holding B / k each. A model of the buffer alone, with
  Poisson arrivals and exponential service; the network's flows are neither.
- :func:`crossbar_cost`: §4's crossbar complexities, (k + 2) k^2 f for
  HIPIQS, 3 k^2 f for the SP2 central buffer, k^2 f for FIFO, SAFC and DAMQ.

Examples
--------
>>> from switchq.models.flit import FlitNetwork, MessageTraffic
>>> net = FlitNetwork.bmin(16)
>>> round(zero_load_latency(net, MessageTraffic(0.1, 64)), 4)
71.8
>>> saturation_bound(net, MessageTraffic(0.1, 64, pattern="bitrev"))
1.0
>>> crossbar_cost(8, 16, "hipiqs")
10240
"""

from __future__ import annotations

import math

import numpy as np

from switchq.models import _check

from switchq.models.topology import TO_NODE

__all__ = ["zero_load_latency", "route_switches", "channel_loads", "saturation_bound", "fifo_saturation",
           "buffer_sharing", "message_places", "crossbar_cost", "KAMOUN_KLEINROCK", "KAROL"]

KAMOUN_KLEINROCK = ("F. Kamoun and L. Kleinrock, 'Analysis of shared finite storage in a computer network node "
                    "environment under general traffic conditions', IEEE Trans. Commun. 28(7):992-1003, 1980")
KAROL = ("Karol, Hluchyj & Morgan, 'Input versus output queueing on a space-division packet switch', IEEE Trans. "
         "Commun. 35(12):1347-1356, 1987")


def _pairs(net, traffic):
    """(source, destination, weight) of the pattern: each source's destinations and their shares."""
    n = net.nodes
    if traffic.pattern == "uniform":
        dests = np.arange(n)
        for v in range(n):
            if traffic.uniform_over == "all":
                yield v, dests, np.full(n, 1.0 / n)
            else:
                others = dests[dests != v]
                yield v, others, np.full(n - 1, 1.0 / (n - 1))
    else:
        from switchq.models.traffic import Traffic

        perm = Traffic(0.0, pattern=traffic.pattern).permutation(n)
        for v in range(n):
            yield v, np.array([perm[v]]), np.array([1.0])


def route_switches(net, source: int, dest: int) -> int:
    """Switches a packet from ``source`` to ``dest`` crosses, read from the routing tables along the first
    port of each choice (every choice of these topologies is as long): 2 l + 1 on a tree with the least common
    ancestor on level l, 1 on a single switch and for a node sending to itself (it loops through its leaf).

    Examples
    --------
    >>> from switchq.models.flit import FlitNetwork
    >>> n = FlitNetwork.bmin(64)
    >>> route_switches(n, 0, 1), route_switches(n, 0, 5), route_switches(n, 0, 63)
    (1, 3, 5)
    >>> route_switches(FlitNetwork.sp2(64), 0, 63)    # leaf, board switch, the far board's switch, leaf
    4
    """
    tab = net.tables()
    s, hops = int(tab.out_switch[tab.node_link(source)]), 1
    while True:
        mask = int(tab.groups[s, tab.route[s, dest]])
        g = s * tab.ports + (mask & -mask).bit_length() - 1
        if tab.out_switch[g] == TO_NODE:
            return hops
        s, hops = int(tab.out_switch[g]), hops + 1


def zero_load_latency(net, traffic) -> float:
    """Mean cycles from a message's creation to its last flit's arrival with the network otherwise empty."""
    s = net.switch
    total = 0.0
    for v, dests, w in _pairs(net, traffic):
        for d, share in zip(dests, w):
            h = route_switches(net, v, int(d))
            total += share * (h * s.bypass_cycles + (h + 1) * net.link_delay)
    return float(total / net.nodes + traffic.message_flits - 1)


def channel_loads(net, traffic) -> np.ndarray:
    """Load on every switch output (``switches * ports`` entries, in flits per cycle per unit of injected load)
    with each flow spread evenly over its up-port choices."""
    tab = net.tables()
    k = tab.ports
    load = np.zeros(tab.switches * k)
    for v, dests, w in _pairs(net, traffic):
        for d, share in zip(dests, w):
            # Walk the route, splitting the flow evenly where the route offers several ports.
            current = {int(tab.out_switch[tab.node_link(v)]): share}
            while current:
                nxt = {}
                for s, f in current.items():
                    mask = int(tab.groups[s, tab.route[s, int(d)]])
                    ports = [p for p in range(k) if mask >> p & 1]
                    for p in ports:
                        g = s * k + p
                        load[g] += f / len(ports)
                        target = int(tab.out_switch[g])
                        if target >= 0:
                            nxt[target] = nxt.get(target, 0.0) + f / len(ports)
                current = nxt
    return load


def saturation_bound(net, traffic) -> float:
    """The channel-load bound on the received load: 1 / (heaviest channel's load per unit of injected load),
    at most 1 (the injection and ejection links)."""
    heaviest = float(channel_loads(net, traffic).max())
    return min(1.0, 1.0 / heaviest) if heaviest > 0 else 1.0


def fifo_saturation(ports: int):
    """Karol's saturation throughput of a ``ports``-port FIFO switch (uniform over every output): exact for
    single-flit messages, the message-slotted approximation for longer ones."""
    from . import hol

    return hol.saturation_throughput(ports)


def message_places(buffer_flits: int, message_flits: int) -> int:
    """Whole messages a buffer of ``buffer_flits`` holds (:func:`buffer_sharing`'s B): at least one, else refused.

    Examples
    --------
    >>> message_places(640, 64)
    10
    >>> message_places(10, 64)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: buffer_flits: got 10; allowed: an integer >= 64 (one 64-flit message at least)
    """
    m = _check.integer("message_flits", message_flits, 1, 1 << 16)
    b = _check.integer("buffer_flits", buffer_flits, 1, 1 << 20)
    if b < m:   # no place for a message: the model would have none to share
        raise _check.InputError("buffer_flits", buffer_flits, f"an integer >= {m} (one {m}-flit message at least)")
    return b // m


def buffer_sharing(ports: int, rho: float, places: int) -> dict:
    """Blocking and mean occupancy of an input buffer of ``places`` message places shared by ``ports`` queues
    (complete sharing) or split into ``places // ports`` each (complete partitioning), each queue an M/M/1 of
    load ``rho`` (Kamoun & Kleinrock 1980).

    Examples
    --------
    >>> r = buffer_sharing(8, 0.5, 20)          # 1280-flit buffer, 64-flit messages, 8 queues at rho 0.5
    >>> round(r["blocking_shared"], 4), round(r["blocking_partitioned"], 4)
    (0.0033, 0.1429)
    """
    k = _check.integer("ports", ports, 1, 1024)
    rho = _check.real("rho", rho, 0.0, 10.0, low_open=True)
    b = _check.integer("places", places, 1, 100_000)
    # Complete sharing: P(total = n) ~ C(n + k - 1, k - 1) rho^n, n <= B (product form, equal loads).
    logw = np.array([math.lgamma(n + k) - math.lgamma(k) - math.lgamma(n + 1) + n * math.log(rho)
                     for n in range(b + 1)])
    p = np.exp(logw - logw.max())
    p /= p.sum()
    shared_block = float(p[-1])
    shared_mean = float(np.dot(np.arange(b + 1), p))
    part = b // k
    if part == 0:
        part_block, part_mean = 1.0, 0.0
    else:
        q = rho ** np.arange(part + 1)
        q /= q.sum()
        part_block = float(q[-1])
        part_mean = k * float(np.dot(np.arange(part + 1), q))
    return {"blocking_shared": shared_block, "blocking_partitioned": part_block,
            "occupancy_shared": shared_mean, "occupancy_partitioned": part_mean, "places_per_queue": part,
            "method": "k M/M/1 queues; complete sharing: product form truncated at B places; complete "
                      "partitioning: M/M/1/(B/k) each", "source": KAMOUN_KLEINROCK}


def crossbar_cost(ports: int, flit_bits: int, buffer_org: str) -> int:
    """§4's crossbar complexity in crosspoint-bits: (k + 2) k^2 f (HIPIQS: a (k + 1) x k crossbar per input
    plus the output multiplexers), 3 k^2 f (central buffer: in, out and bypass crossbars), k^2 f otherwise."""
    k = _check.integer("ports", ports, 1, 1024)
    f = _check.integer("flit_bits", flit_bits, 1, 1 << 16)
    factor = {"hipiqs": k + 2, "central": 3}.get(buffer_org, 1)
    return factor * k * k * f
