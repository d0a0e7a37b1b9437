"""The leaf-spine fabric's kernel (issue 37): lossless shared-memory switches with PFC between them.

Every directed link has an output queue at its sending switch (a host's is virtual: a backlogged sender
always has a cell, a victim counts the cells it owes) and a wire of ``link_delay`` slots. A slot:

1. **arrive**: the cell each wire delivers (sent ``link_delay`` slots ago) reaches a host (delivered) or a
   switch, which routes it (down to its host, or up to the flow's spine; a spine down to the host's leaf)
   and admits it by the arriving link's ingress group, as the single switch does
   (:mod:`switchq.validate.arch.shared_buffer_phases`): counted in the shared memory up to XOFF, above it in
   the port's headroom, lost only when that is full. An XOFF pauses the arriving link's sender from
   ``link_delay`` slots later (the PFC frame's trip);
2. **send**: each link not paused sends its queue's head (a host link: a new cell of its flow); a cell leaving
   a switch leaves its ingress group, and a group drained to XON resumes its link ``link_delay`` later;
3. **offer**: each victim flow draws its Bernoulli cell.

Measured on the links the incast's flows take, hop by hop back from host 0's leaf: the spines' links down to
leaf 0 (1), the leaves' uplinks (2), the senders' host links (3); and the victims' host links (4): the share
of slots each was paused, averaged over the links of its hop.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .. import kernel as K
from .cell_lists import append, give, new_memory, remove, take
from .phase_pipeline import PhasePipeline

LAYOUT = K.Layout(("m_incast_delivered", "m_victim_delivered", "m_victim_offered", "m_xoffs",
                   "m_paused_tier1", "m_paused_tier2", "m_paused_tier3", "m_paused_tier4",
                   "tier1_links", "tier2_links", "tier3_links", "tier4_links",
                   "headroom_peak", "m_lossless_drops", "victim_backlog"))
(M_INCAST, M_VICTIM, M_VICTIM_OFFERED, M_XOFFS, M_PAUSED1, M_PAUSED2, M_PAUSED3, M_PAUSED4, TIER_LINKS1,
 TIER_LINKS2, TIER_LINKS3, TIER_LINKS4, HR_PEAK, M_DROPS, VICTIM_BACKLOG) = (
    LAYOUT.index(n) for n in LAYOUT.names[K.N_CORE:])

NIL = -1
NEVER = K.NEVER
# Rows of ``cells``: linked-list pointers (cell_lists'), generation slot, source and destination hosts, the link
# it arrived on.
NEXT, PREV, STAMP, SRC, DST, INLINK = range(6)
# Rows of ``links``: queue head, tail, length (cell_lists'); the first slot its sender is stopped, the first it
# sends again; its ingress group at the receiving switch: cells in the shared memory, in headroom, XOFF sent;
# its tier (0: not measured); the flow a host link sends (-1: none).
HEAD, TAIL, LEN, STOP_AT, RESUME_AT, ING, HEADROOM, XOFF, TIER, FLOW = range(10)
# Rows of ``flows``: source host, destination host, backlogged (1) or Bernoulli victim (0), cells owed.
F_SRC, F_DST, F_BACKLOGGED, F_OWED = range(4)

G_FREE, G_FIRST = 0, 1           # slots of ``g``: the free list's head (cell_lists' FREE), the rotation
Fabric = namedtuple("Fabric", "leaves spines hosts_per_leaf hosts buffer xoff xon headroom delay")


@njit(cache=True, inline="always")
def up_link(f, h):
    return h


@njit(cache=True, inline="always")
def down_link(f, h):
    return f.hosts + h


@njit(cache=True, inline="always")
def leaf_spine_link(f, leaf, spine):
    return 2 * f.hosts + leaf * f.spines + spine


@njit(cache=True, inline="always")
def spine_leaf_link(f, spine, leaf):
    return 2 * f.hosts + f.leaves * f.spines + spine * f.leaves + leaf


@njit(cache=True, inline="always")
def receiver(f, link):
    """The switch a link delivers to (0..L-1 leaves, L..L+S-1 spines), or -1 for a host."""
    if link < f.hosts:
        return link // f.hosts_per_leaf
    if link < 2 * f.hosts:
        return -1
    k = link - 2 * f.hosts
    if k < f.leaves * f.spines:
        return f.leaves + k % f.spines
    return k % f.leaves


@njit(cache=True, inline="always")
def route(f, switch, src, dst):
    """The link a cell for host ``dst`` (from ``src``) leaves ``switch`` on."""
    if switch < f.leaves:
        if dst // f.hosts_per_leaf == switch:
            return down_link(f, dst)
        return leaf_spine_link(f, switch, (src + dst) % f.spines)
    return spine_leaf_link(f, switch - f.leaves, dst // f.hosts_per_leaf)


@njit(cache=True, inline="always")
def _xoff(f, links, link, t, warmup, stats):
    """The group of ``link`` sends XOFF in slot ``t``: its sender stops when the frame arrives, ``delay`` later
    (unless it still is stopped)."""
    links[XOFF, link] = 1
    if links[RESUME_AT, link] <= t or links[STOP_AT, link] == NEVER:
        links[STOP_AT, link] = t + f.delay
    links[RESUME_AT, link] = NEVER
    if t >= warmup:
        stats[M_XOFFS] += 1


@njit(cache=True, inline="always")
def arrive(f, cells, links, wire, used, g, t, run, stats):
    """Phase 1: each wire's cell reaches its host (delivered) or its switch (admitted by the arriving link's
    group: the shared memory up to XOFF, then the port's headroom, else lost), links in an order rotated every
    slot."""
    n_links, slot = links.shape[1], t % f.delay
    g[G_FIRST] = g[G_FIRST] + 1 if g[G_FIRST] + 1 < n_links else 0
    for m in range(n_links):
        link = g[G_FIRST] + m if g[G_FIRST] + m < n_links else g[G_FIRST] + m - n_links
        c = wire[link, slot]
        if c == NIL:
            continue
        wire[link, slot] = NIL
        sw = receiver(f, link)
        if sw < 0:                                      # delivered to its host
            stats[K.STAT_DELIVERED] += 1
            if t >= run.warmup:
                stats[K.STAT_M_DELIVERED] += 1
                stats[K.STAT_M_LATENCY_SUM] += t - cells[STAMP, c]
                stats[K.STAT_M_LATENCY_COUNT] += 1
                stats[M_INCAST if cells[DST, c] == 0 else M_VICTIM] += 1
            give(cells, g, c)
            continue
        if links[XOFF, link] == 0 and links[ING, link] < f.xoff and used[sw] < f.buffer:
            links[ING, link] += 1
            used[sw] += 1
            if links[ING, link] >= f.xoff:
                _xoff(f, links, link, t, run.warmup, stats)
        elif links[HEADROOM, link] < f.headroom:
            links[HEADROOM, link] += 1
            if links[HEADROOM, link] > stats[HR_PEAK]:
                stats[HR_PEAK] = links[HEADROOM, link]
            if links[XOFF, link] == 0:                   # the memory was full before the group's threshold
                _xoff(f, links, link, t, run.warmup, stats)
        else:                                           # headroom full: a lossless cell lost
            stats[K.STAT_DROPPED] += 1
            stats[K.STAT_ARRIVED] -= 1                  # counted when its host sent it; never inside now
            if t >= run.warmup:
                stats[M_DROPS] += 1
            give(cells, g, c)
            continue
        cells[INLINK, c] = link
        append(cells, links, route(f, sw, cells[SRC, c], cells[DST, c]), c)


@njit(cache=True, inline="always")
def send(f, cells, links, flows, wire, used, g, t, run, stats):
    """Phase 2: each link not paused sends its queue's head (a host link a new cell of its flow); a cell leaving
    a switch leaves its group (headroom first), which resumes its link ``delay`` later once drained to XON."""
    slot = t % f.delay
    for link in range(links.shape[1]):
        if links[STOP_AT, link] <= t < links[RESUME_AT, link]:
            tier = links[TIER, link]
            if t >= run.warmup and tier > 0:
                stats[M_PAUSED1 + tier - 1] += 1
            continue
        if link < f.hosts:
            k = links[FLOW, link]
            if k < 0 or (flows[F_BACKLOGGED, k] == 0 and flows[F_OWED, k] == 0):
                continue
            if flows[F_BACKLOGGED, k] == 0:
                flows[F_OWED, k] -= 1
            c = take(cells, g)
            cells[STAMP, c] = t
            cells[SRC, c] = flows[F_SRC, k]
            cells[DST, c] = flows[F_DST, k]
            stats[K.STAT_ARRIVED] += 1
            if t >= run.warmup:
                stats[K.STAT_M_OFFERED] += 1
            wire[link, slot] = c
            continue
        if links[LEN, link] == 0:
            continue
        c = links[HEAD, link]
        remove(cells, links, link, c)
        into = cells[INLINK, c]
        if links[HEADROOM, into] > 0:
            links[HEADROOM, into] -= 1
        else:
            links[ING, into] -= 1
            used[receiver(f, into)] -= 1
        # XON once drained to it with the headroom given back (as the single switch): a group resumed with
        # headroom held would meet its next XOFF with less room than the cells in flight.
        if links[XOFF, into] == 1 and links[HEADROOM, into] == 0 and links[ING, into] <= f.xon:
            links[XOFF, into] = 0
            links[RESUME_AT, into] = t + f.delay
        wire[link, slot] = c


@njit(cache=True, inline="always")
def offer(flows, victim_load, t, run, stats):
    """Phase 3: each victim flow draws its Bernoulli cell (owed until its host link sends it)."""
    for k in range(flows.shape[1]):
        if flows[F_BACKLOGGED, k] == 0 and np.random.random() < victim_load:
            flows[F_OWED, k] += 1
            if t >= run.warmup:
                stats[M_VICTIM_OFFERED] += 1


@njit(cache=True)
def new_fabric(f, flows):
    """Every cell that can exist on the free list (each switch's memory and headrooms, every wire, a cell in
    each host's hand) and the links' state, tiers marked."""
    n_links = 2 * f.hosts + 2 * f.leaves * f.spines
    switches = f.leaves + f.spines
    size = switches * (f.buffer + max(f.hosts_per_leaf + f.spines, f.leaves) * f.headroom) + n_links * f.delay \
        + f.hosts
    cells, links = new_memory(6, size, n_links, 10)
    links[STOP_AT, :] = NEVER
    links[RESUME_AT, :] = NEVER
    links[FLOW, :] = -1
    for k in range(flows.shape[1]):
        src = flows[F_SRC, k]
        links[FLOW, up_link(f, src)] = k
        if flows[F_BACKLOGGED, k] == 0:                 # a victim
            links[TIER, up_link(f, src)] = 4
            continue
        spine = (src + flows[F_DST, k]) % f.spines      # the incast's path: the flow's ECMP spine
        links[TIER, up_link(f, src)] = 3
        links[TIER, leaf_spine_link(f, src // f.hosts_per_leaf, spine)] = 2
        links[TIER, spine_leaf_link(f, spine, 0)] = 1
    wire = np.full((n_links, f.delay), NIL, dtype=np.int64)
    return cells, links, wire, np.zeros(switches, dtype=np.int64), np.zeros(2, dtype=np.int64)


@njit(cache=True, pipeline_class=PhasePipeline)
def _run(f, flows, victim_load, run, stats):
    K.seed_rng(run.seed)
    cells, links, wire, used, g = new_fabric(f, flows)
    for tier in range(4):
        stats[TIER_LINKS1 + tier] = (links[TIER] == tier + 1).sum()
    for t in range(run.warmup + run.slots):
        K.mark_batch(stats, t, run)
        arrive(f, cells, links, wire, used, g, t, run, stats)
        send(f, cells, links, flows, wire, used, g, t, run, stats)
        offer(flows, victim_load, t, run, stats)
    stats[K.STAT_QUEUED] = links[LEN].sum() + (wire != NIL).sum()
    stats[VICTIM_BACKLOG] = flows[F_OWED].sum()


def flows_for(fabric, workload) -> np.ndarray:
    """The flows as rows F_SRC, F_DST, F_BACKLOGGED, F_OWED: the incast's senders (hosts off leaf 0, leaf by
    leaf in turn) to host 0, then the victims (the next hosts in that order) each to the last host of the next
    leaf (never leaf 0)."""
    h, others = fabric.hosts_per_leaf, fabric.leaves - 1
    n = workload.degree + workload.victims
    flows = np.zeros((4, n), dtype=np.int64)
    for k in range(n):
        leaf, slot = 1 + k % others, k // others
        flows[F_SRC, k] = leaf * h + slot
        if k < workload.degree:
            flows[F_DST, k], flows[F_BACKLOGGED, k] = 0, 1
        else:
            flows[F_DST, k] = (1 + leaf % others) * h + h - 1
    return flows


def replicate(fabric, workload, run):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``)."""
    f = Fabric(leaves=fabric.leaves, spines=fabric.spines, hosts_per_leaf=fabric.hosts_per_leaf, hosts=fabric.hosts,
               buffer=fabric.buffer_cells, xoff=fabric.xoff_cells, xon=fabric.xoff_cells - fabric.xon_offset_cells,
               headroom=fabric.headroom, delay=fabric.link_delay)
    stats = LAYOUT.zeros(run)
    _run(f, flows_for(fabric, workload), float(workload.victim_load), run, stats)
    return stats
