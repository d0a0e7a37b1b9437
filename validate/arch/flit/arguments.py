"""The flit kernels' arguments, built from the models (paper 000 §3-§5, paper 004 §III, §V-F).

A network and its workload become the records of :mod:`.records`, each built by keyword; the checks a
simulator needs beyond the models' own are made here, once, so the kernels never validate. The frame
counters of a VC run are computed here too, after its kernel, from the frames' delivery cycles.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from ... import kernel as K
from .cut_through_pools import memory_rows
from .records import (ATTEMPTED, BE_VTICK, ESTABLISHED, FRAMES_LATE, INTERVAL_BASE, M_FRAMES, M_INTERVAL_DEV_SQ,
                      M_INTERVAL_DEV_SUM, NIC_MESSAGES, ORG, REFUSED, SCHED, STREAMS, Sw, Tab, Tr, Va, Vc)


def tables(net) -> Tab:
    t = net.tables()
    k = t.ports
    up = np.zeros(t.switches * k + t.nodes, dtype=np.int64)
    for g in range(t.switches * k):
        target = t.out_switch[g]
        # up a stage, or across between SP2 boards (stage 1 to stage 1): the central buffer's up share holds
        # both, or two boards' switches full of packets crossing to each other could deadlock
        here = t.stage[g // k]
        up[g] = 1 if target >= 0 and (t.stage[target] > here or t.stage[target] == here > 0) else 0
    return Tab(out_switch=t.out_switch, out_input=t.out_input, route=t.route.astype(np.int64), groups=t.groups,
               up=up)


def switch(net) -> Sw:
    s = net.switch
    k = s.ports
    c_chunks = s.central_flits // k
    return Sw(org=ORG[s.buffer_org], k=k,
              cap=s.central_input_flits if s.buffer_org == "central" else s.buffer_flits,
              part_cap=s.buffer_flits // k, n_chunks=s.shared_flits // k, xp_cap=s.crosspoint_flits,
              c_chunks=c_chunks, c_up_chunks=max(1, int(s.up_share * c_chunks)),
              c_whole=1 if s.central_admission == "packet" else 0, bypass=s.bypass_cycles,
              buffered=s.buffered_cycles, link_delay=net.link_delay, rnd=1 if s.arbitration == "random" else 0,
              up_output=1 if s.up_select == "output" else 0, fifo_arrival=1 if s.fifo_routing == "arrival" else 0,
              credit_delay=net.credit_delay, routing_age=net.routing_age,
              mem_rows=0)        # set by cut_through_arguments, from the tables and the memory available


def traffic(net, tr) -> Tr:
    n = net.nodes
    if tr.pattern == "uniform":
        perm = np.full(n, -1, dtype=np.int64)
    else:
        from switchq.models.traffic import Traffic

        perm = Traffic(0.0, pattern=tr.pattern).permutation(n).astype(np.int64)
    return Tr(p_msg=tr.messages_per_cycle, poisson=1 if tr.arrivals == "poisson" else 0, msg_flits=tr.message_flits,
              pkt_flits=tr.message_flits if tr.packet_flits is None else tr.packet_flits, perm=perm,
              uniform_all=1 if tr.uniform_over == "all" else 0, active=np.ones(n, dtype=np.int64))


def cut_through_arguments(net, workload):
    """Tables, switch and traffic records of a :class:`~switchq.models.flit.FlitNetwork` run; refuses a network
    whose arrays do not fit in the memory available (:func:`.cut_through_pools.memory_rows`)."""
    net.check_traffic(workload)
    tab = tables(net)
    sw = switch(net)
    return tab, sw._replace(mem_rows=memory_rows(tab, sw, net.nodes)), traffic(net, workload)


class VcRun(NamedTuple):
    """What a VC run is given: its kernel's records (``tab``, ``vc``, ``va``), the streams' placement and frames
    they were made from, the warm-up and measured cycles, the frame period in cycles and the PCS figures
    (circuits attempted, established, refused)."""
    tab: Tab
    vc: Vc
    placement: object
    frames: object
    va: Va
    warm: int
    measure: int
    period: float
    pcs: tuple


def vc_arguments(net, workload, seed: int) -> VcRun:
    """The records of a :class:`~switchq.models.wormhole.WormholeNetwork` run, the streams placed and their
    frames drawn from ``seed``."""
    from switchq.errors import InputError
    from switchq.models.wormhole_placement import pcs_placement, place_streams
    from switchq.models.wormhole_schedule import stream_frames

    net.check_traffic(workload)
    r = net.router
    if r.vcs > 64:
        raise InputError("vcs", r.vcs, "at most 64 for the simulator (a VC set is one 64-bit mask)")
    if r.body_stages < 2:
        raise InputError("body_stages", r.body_stages, "at least 2 for the simulator (stages 4 and 5 follow the "
                                                       "input buffer)")
    pcs = r.switching == "pcs"
    if pcs and net.topology != "switch":
        raise InputError("topology", net.topology, "switch with --switching pcs (§V-F compares one router)")
    if pcs and workload.streams.kind == "mpeg2":
        raise InputError("streams", "mpeg2", "cbr or vbr with --switching pcs")
    if pcs and workload.placement != "uniform":
        raise InputError("placement", workload.placement, "uniform with --switching pcs (its probes draw their own "
                                                          "destinations, §III-F)")
    tab = tables(net)
    nodes = net.nodes
    k = (len(tab.out_switch) - nodes) // tab.route.shape[0]       # ports per router, from the one tables() call
    cps = r.cycles_per_second
    warm = int(round(workload.warmup * cps))
    measure = max(1, int(round(workload.seconds * cps)))
    rng = np.random.default_rng(seed)
    attempted = established = dropped = 0
    if pcs:
        placement, attempted, established, dropped = pcs_placement(nodes, r, workload, rng)
        framed = replace(workload, header="payload")     # a circuit's flits all carry video
    else:
        placement = place_streams(nodes, r, workload, rng)
        framed = workload
    frames = stream_frames(placement, r, framed, warm + measure, rng)
    m_rt = workload.realtime_vcs(r.vcs)
    # a VC buffer's flits: buffer_messages whole messages. No message is longer than message_flits (a frame's
    # last one may be shorter), so the output VC a message holds always has room for its next flit: the
    # crossbar checks only the input side's credits
    cap = r.buffer_messages * workload.message_flits
    vc = Vc(k=k, m=r.vcs, cap=cap, rmask=K.pow2_at_least(cap) - 1, body_wait=r.body_stages - 2,
            header_extra=0 if pcs else r.header_stages - r.body_stages, credit=r.link_cycles, link=r.link_cycles,
            full=1 if r.crossbar == "full" else 0, sched=SCHED[r.scheduler],
            per_message=1 if r.vclock_state == "message" else 0,
            be_vtick=BE_VTICK if r.best_effort_vtick is None else float(r.best_effort_vtick), m_rt=m_rt,
            be_rate=float(workload.best_effort_messages_per_cycle if r.vcs - m_rt > 0 else 0.0),
            be_all=1 if workload.destinations == "all" else 0, msg_flits=workload.message_flits,
            nic_messages=NIC_MESSAGES, iterations=r.crossbar_iterations or k,
            b_stamp=1 if r.crossbar_output == "stamp" else 0, be_free=1 if r.best_effort_vcs == "free" else 0,
            be_bits=_bits(m_rt, r.vcs), be_flat=1 if r.best_effort_stamp == "largest" else 0,
            regulated=1 if workload.streams.regulator == "spread" else 0)
    va = Va(st_off=frames.offset, st_src=placement.source, st_dest=placement.dest, st_ivc=placement.input_vc,
            st_dvc=placement.dest_vc, f_start=frames.start, f_msgs=frames.messages, f_last=frames.last_flits,
            f_spacing=frames.spacing, frame_done=np.full(frames.frames, -1, dtype=np.int64))
    return VcRun(tab=tab, vc=vc, placement=placement, frames=frames, va=va, warm=warm, measure=measure,
                 period=workload.streams.frame_period * cps, pcs=(attempted, established, dropped))


def _bits(low: int, high: int) -> int:
    """Bits low..high - 1 set, as a signed 64-bit integer (bit 63 the sign)."""
    bits = ((1 << high) - 1) ^ ((1 << low) - 1)
    return bits - (1 << 64) if bits >= 1 << 63 else bits


def frame_counters(stats, va, warm: int, end: int, period: float, pcs) -> None:
    """Frame delivery intervals of consecutive frames of a stream, both delivered, the first started after the
    warm-up: their count, and their sum and sum of squares as deviations from the frame period in whole
    cycles (exact integers); frames that started at least two periods before the end and never arrived."""
    rows = len(va.f_start)
    stream = np.repeat(np.arange(len(va.st_src)), np.diff(va.st_off))
    done = va.frame_done
    base = int(round(period))
    if rows > 1:
        ok = ((stream[:-1] == stream[1:]) & (done[:-1] >= 0) & (done[1:] >= 0) & (va.f_start[:-1] >= warm))
        dev = (done[1:] - done[:-1])[ok] - base
        stats[M_FRAMES] = len(dev)
        stats[M_INTERVAL_DEV_SUM] = int(dev.sum())
        stats[M_INTERVAL_DEV_SQ] = int((dev * dev).sum())
    stats[INTERVAL_BASE] = base
    stats[FRAMES_LATE] = int(np.sum((done < 0) & (va.f_start >= warm) & (va.f_start + 2 * period <= end)))
    stats[STREAMS] = len(va.st_src)
    stats[ATTEMPTED], stats[ESTABLISHED], stats[REFUSED] = pcs
