"""Flit-level switches and BMINs (paper 000): kernel properties, analytic checks, the paper's claims (reduced)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from switchq.models.flit import BUFFER_ORGS, CROSSPOINT_STORAGES, FlitNetwork, FlitSwitch, MessageTraffic
from switchq.solvers import bmin, hol
from switchq.validate import kernel as K
from switchq.validate.arch import flit as F
from switchq.validate.harness import RunSettings, run
from switchq.architectures.bmin import DECLARATION, build


def _capacity(sw: FlitSwitch) -> int:
    """Flits an input may store under each organisation's rules."""
    if sw.buffer_org == "hipiqs":
        return sw.shared_flits + sw.ports * sw.crosspoint_flits
    if sw.buffer_org == "central":
        return sw.central_input_flits
    return sw.buffer_flits


@settings(max_examples=25, deadline=None)
@given(org=st.sampled_from(BUFFER_ORGS), message=st.integers(1, 24), chunks=st.integers(2, 12),
       load=st.floats(0.05, 1.0), pattern=st.sampled_from(("uniform", "bitrev", "transpose")),
       packet=st.one_of(st.none(), st.integers(1, 8)), seed=st.integers(1, 10_000),
       storage=st.sampled_from(CROSSPOINT_STORAGES), credit=st.integers(0, 6), age=st.integers(0, 6))
def test_flits_arrive_whole_in_order_uninterleaved_and_within_the_buffers(org, message, chunks, load, pattern,
                                                                           packet, seed, storage, credit, age):
    # HIPIQS's FIFO units come out of the buffer (within) or on top of it (extra): the shared part has
    # `chunks` chunks either way. Only HIPIQS has FIFO units, so only it takes the option. A credit's return
    # trip and aged queue lengths change only when a flit may move, never what arrives.
    extra = 16 if org == "central" else 8 * 16 if org == "hipiqs" and storage == "within" else 0
    own = {"crosspoint_storage": storage} if org == "hipiqs" else {}
    sw = FlitSwitch(8, org, 8 * chunks + extra, **own)
    net = FlitNetwork.bmin(16, sw, credit_delay=credit, routing_age=age if org in ("safc", "damq", "hipiqs") else 0)
    traffic = MessageTraffic(load, message, packet, pattern=pattern)
    stats, trace = F.trace_run(net, traffic, K.Run(slots=400, warmup=0, drain=60_000, seed=seed))
    c = F.LAYOUT.named(stats)
    # No flit lost or duplicated: every flit offered reaches a node once, the run drained.
    assert c["deadlock"] == 0
    assert c["flits_offered"] == c["flits_received"] == len(trace)
    assert c["arrived"] == c["delivered"] and c["queued"] == 0
    # Storage never exceeds what the organisation has.
    assert c["max_held"] <= _capacity(sw)
    # On each node's link a packet's flits arrive in order (1, 2, ..., L) and no other packet's flit comes
    # between them (cut-through: a link carries one packet from header to tail).
    if packet is None or packet >= message:
        lengths = {message}
    else:
        lengths = {packet, message - (message - 1) // packet * packet}
    for node in range(16):
        rows = trace[trace[:, 1] == node]
        starts = np.flatnonzero(rows[:, 3] == 1)
        for a, b in zip(starts, list(starts[1:]) + [len(rows)]):
            block = rows[a:b]
            assert (block[:, 2] == block[0, 2]).all()                       # one packet, not interleaved
            assert (block[:, 3] == np.arange(1, len(block) + 1)).all()      # its flits in order
            assert len(block) in lengths                                    # whole


def test_every_organisation_drains_a_saturated_bmin_without_deadlock():
    # Up and down traffic share the central buffer: without the up share it can deadlock.
    for org in BUFFER_ORGS:
        sw = FlitSwitch(8, org, 160)
        stats = F.replicate(FlitNetwork.bmin(16, sw), MessageTraffic(1.0, 32), K.Run(slots=5000, warmup=0,
                                                                                     drain=200_000, seed=3))
        c = F.LAYOUT.named(stats)
        assert c["deadlock"] == 0 and c["queued"] == 0 and c["flits_offered"] == c["flits_received"], org


def test_one_flit_fifo_crossbar_is_karols_switch():
    # With single-flit messages a flit switch is Karol's slotted FIFO switch: N = 4 saturates at 325/496.
    net = FlitNetwork.single(4, FlitSwitch(4, "fifo", 64, arbitration="random"))
    r = run(DECLARATION, net, MessageTraffic(1.0, 1, uniform_over="all"),
            RunSettings(slots=40_000, replications=6, seed=5))
    exact = hol.saturation_throughput(4).saturation_throughput
    assert r.throughput.low <= exact <= r.throughput.high, (r.throughput, exact)


def test_cell_level_fifo_and_flit_fifo_agree():
    # The cell-level fifo kernel and the flit kernel with 1-flit messages: the same switch, two simulators.
    from switchq.models import Traffic
    from switchq.api import Switch, simulate

    cells = simulate(Switch(8, "fifo"), Traffic(1.0), RunSettings(slots=30_000, replications=6, seed=2))
    flits = run(DECLARATION, FlitNetwork.single(8, FlitSwitch(8, "fifo", 64, arbitration="random")),
                MessageTraffic(1.0, 1, uniform_over="all"), RunSettings(slots=30_000, replications=6, seed=2))
    gap = abs(cells.throughput.value - flits.throughput.value)
    assert gap <= cells.throughput.half_width + flits.throughput.half_width


def test_64_port_switches_reach_every_port():
    # Port sets are 64-bit words and port 63 is the sign bit: a 64-port crossbar and a fat tree of 64-port
    # switches (32 up ports, bits 32-63) route to their last port. A lone message through one switch takes its
    # bypass pipeline, two links and M - 1 flits (2 + 2 + 63 cycles); through the tree, as in the test below.
    # (FIFO units on top of the buffer: 64 ports' units of 128 flits would not fit within 640.)
    net = FlitNetwork.single(64, FlitSwitch(64, "hipiqs", 640, crosspoint_storage="extra"))
    assert F.lone_latency(net, 0, 63, 64) == F.lone_latency(net, 63, 0, 64) == 2 + 2 + 63
    tree = FlitNetwork.bmin(1024, FlitSwitch(64, "hipiqs", 640, crosspoint_storage="extra"))
    h = bmin.route_switches(tree, 0, 1023)
    assert h == 3 and F.lone_latency(tree, 0, 1023, 64) == 2 * h + (h + 1) + 63


@pytest.mark.parametrize("nodes,packet", [(16, None), (64, None), (16, 16), (64, 7)])
def test_zero_load_latency_is_what_a_lone_message_takes(nodes, packet):
    # One message in an empty network: h bypass pipelines, h + 1 links, then M - 1 flits behind the header,
    # packetised or not (packets stream back to back). Exact, to the cycle.
    net = FlitNetwork.bmin(nodes, FlitSwitch(8, "hipiqs", 640))
    for source, dest in ((0, nodes - 1), (3, 3), (5, 1), (1, 6)):
        h = bmin.route_switches(net, source, dest)
        assert F.lone_latency(net, source, dest, 64, packet) == 2 * h + (h + 1) + 63, (source, dest)
    # The analytic mean over a pattern is the mean of these.
    traffic = MessageTraffic(0.1, 64, packet)
    mean = np.mean([F.lone_latency(net, s, d, 64, packet) for s in range(nodes) for d in range(nodes) if s != d]) \
        if nodes == 16 else None
    if mean is not None:
        assert bmin.zero_load_latency(net, traffic) == pytest.approx(mean)


def test_channel_load_bound_and_crossbar_costs():
    net = FlitNetwork.bmin(16)
    # Uniform traffic over the other nodes loads every BMIN channel at most as much as the ejection link.
    loads = bmin.channel_loads(net, MessageTraffic(0.5, 64))
    assert loads.max() == pytest.approx(1.0)
    assert bmin.saturation_bound(net, MessageTraffic(0.5, 64)) == pytest.approx(1.0)
    # §4: HIPIQS (k + 2) k^2 f, central 3 k^2 f, the rest k^2 f; k = 8, f = 16 bits.
    assert bmin.crossbar_cost(8, 16, "hipiqs") == 10 * 64 * 16
    assert bmin.crossbar_cost(8, 16, "central") == 3 * 64 * 16
    assert bmin.crossbar_cost(8, 16, "damq") == 64 * 16


def test_complete_sharing_blocks_less_than_partitioning():
    # Kamoun & Kleinrock: with equal loads complete sharing always blocks less. k = 1 is one M/M/1/B queue,
    # whose blocking is (1 - rho) rho^B / (1 - rho^(B + 1)).
    r = bmin.buffer_sharing(1, 0.7, 5)
    assert r["blocking_shared"] == pytest.approx(0.3 * 0.7 ** 5 / (1 - 0.7 ** 6))
    assert r["blocking_partitioned"] == pytest.approx(r["blocking_shared"])
    r = bmin.buffer_sharing(8, 0.5, 20)
    assert r["blocking_shared"] < r["blocking_partitioned"]


def _stable(org, message, buffer, load, nodes=16, pattern="uniform", cycles=20_000, reps=3, seed=1, **params):
    net, traffic = build({**{p.name: p.default for p in DECLARATION.all_params()},
                          "nodes": nodes, "buffer_org": org, "message_flits": message, "buffer_flits": buffer,
                          "load": load, "traffic": pattern, **params})
    r = run(DECLARATION, net, traffic, RunSettings(slots=cycles, warmup_slots=cycles // 2, replications=reps,
                                                   seed=seed))
    return not r.unstable, r


def test_paper_000_fifo_saturates_long_before_hipiqs():
    # Fig. 7: FIFO input queuing saturates far below HIPIQS (64-flit messages, 640-flit buffers). Ours
    # carries at most about 0.69 (reports/hipiqs.md: the paper's "well before 0.60" is not met); HIPIQS
    # carries 0.8 (the paper: saturation above 0.9 for messages of 10-20 % of the buffer).
    ok, r = _stable("fifo", 64, 640, 0.8)
    assert not ok and r.throughput.value < 0.72
    ok, r = _stable("hipiqs", 64, 640, 0.8)
    assert ok and r.throughput.value == pytest.approx(0.8, abs=0.02)


def test_paper_000_central_buffer_beats_hipiqs_when_the_message_is_most_of_the_buffer():
    # Fig. 7: 256-flit messages in 320-flit buffers (80 %) perform "considerably worse than output queuing".
    # Judged with the report's own run length, replications and stability rule (reports/hipiqs.md), with
    # HIPIQS's FIFO units within the buffer (every flit of storage counted; the default puts them on top, as
    # §3.2 and §5.1 say, and the report judges the claim under both): the central buffer carries 0.75 stably
    # (measured 0.742, 95 % CI 0.727 .. 0.757), HIPIQS does not carry 0.7 (measured 0.611, unstable).
    from switchq.validate.reports.hipiqs import CYCLES, REPLICATIONS

    ok_c, central = _stable("central", 256, 320, 0.75, cycles=CYCLES, reps=REPLICATIONS)
    ok_h, hipiqs = _stable("hipiqs", 256, 320, 0.7, cycles=CYCLES, reps=REPLICATIONS, crosspoint_storage="within")
    assert ok_c and central.throughput.low <= 0.75 <= central.throughput.high
    # "considerably": the gap is 0.13; 0.05 is the report's tolerance for the word (AROUND).
    assert not ok_h and hipiqs.throughput.high < central.throughput.low - 0.05


def test_central_buffer_reserves_what_it_admits_and_does_not_deadlock():
    # Issue 25 item 5: admitted whole but not reserved, packets admitted behind one took the chunks its tail
    # needed; a leaf filled with packets queued for one node behind a packet whose last 8 flits waited for a
    # chunk, its up share with packets waiting on roots full of packets waiting on the leaves: seed 1's first
    # replication deadlocked at cycle 111,579 (throughput 0.07). Reserved, every replication runs.
    ok, r = _stable("central", 256, 320, 0.8, cycles=150_000, reps=2, seed=1)
    assert r.counters["deadlock"] == 0
    assert r.throughput.value > 0.7        # both replications carry (measured 0.738; was 0.433: 0.071 and 0.795)


def test_hipiqs_equalises_its_input_buffers_and_keeps_its_fifo_units_beside_them_by_default():
    # §5.1 equalises "all the input buffers" with the central buffer and its small input buffers; §3.2 lists
    # the input module's "input buffer, ... and k small FIFO units" as separate components (issue 36).
    hip, central = FlitSwitch(8, "hipiqs", 320), FlitSwitch(8, "central", 320)
    assert hip.crosspoint_storage == "extra" and DECLARATION.param("crosspoint_storage").default == "extra"
    assert 8 * hip.shared_flits == central.central_flits + 8 * central.central_input_flits
    # The other reading counts every flit of storage: the units come out of the buffer.
    within = FlitSwitch(8, "hipiqs", 320, crosspoint_storage="within")
    assert 8 * (within.shared_flits + 8 * within.crosspoint_flits) == 8 * 320


def test_fifo_routed_by_destination_digit_takes_one_up_port():
    # A non-adaptive BMIN: at a leaf, node d's messages go up port 4 + d % 4 (d-mod-k), the only bit of the mask.
    net = FlitNetwork.bmin(16, FlitSwitch(8, "fifo", 640, fifo_routing="destination"))
    t = net.tables()
    for d in range(4, 16):
        assert int(t.groups[0, t.route[0, d]]) == 1 << (4 + d % 4)
    # With uniform traffic every up link still carries the same load: the channel bound stays 1.
    assert bmin.saturation_bound(net, MessageTraffic(0.5, 64)) == pytest.approx(1.0)
    with pytest.raises(Exception, match="fifo_routing"):
        FlitNetwork.sp2(64, FlitSwitch(8, "fifo", 640, fifo_routing="destination"))


def test_sp2_boards_wiring_routes_and_drains():
    # Four 16-node boards cabled directly: links pair up both ways, each board sends 5 links to each
    # neighbour and 6 to the opposite board, every board switch reaches every other board, and a packet
    # crosses 1, 3 or 4 switches (leaf; leaf-board-leaf; leaf-board-board'-leaf).
    net = FlitNetwork.sp2(64, FlitSwitch(8, "central", 160))
    t = net.tables()
    k = t.ports
    for g in range(t.switches * k):
        if t.out_switch[g] >= 0:
            back = t.out_switch[g] * k + t.out_input[g]
            assert (t.out_switch[back], t.out_input[back]) == (g // k, g % k)
    for b in range(4):
        to = [sum(t.out_switch[s * k + p] // 8 == far for s in range(b * 8 + 4, b * 8 + 8) for p in range(4, 8))
              for far in range(4)]
        assert sorted(to) == [0, 5, 5, 6] and to[(b + 2) % 4] == 6
    assert {bmin.route_switches(net, 0, d) for d in range(64)} == {1, 3, 4}
    # Crossing links count as going up for the central buffer's up share: saturated, it drains.
    stats = F.replicate(net, MessageTraffic(1.0, 32), K.Run(slots=3000, warmup=0, drain=200_000, seed=3))
    c = F.LAYOUT.named(stats)
    assert c["deadlock"] == 0 and c["flits_offered"] == c["flits_received"]


def test_central_packet_admission_refuses_a_packet_larger_than_either_share():
    # 24-flit buffers leave 8 chunks, 4 of them the up share: a 64-flit packet (8 chunks) could be admitted only
    # in part, and a part-reserved packet's tail can starve (it deadlocked after ~600 flits): refused, naming
    # the value and the limit; 32-flit packets (4 chunks) fit.
    net = FlitNetwork.bmin(16, FlitSwitch(8, "central", 24))
    with pytest.raises(Exception, match=r"message_flits: got 64; allowed: at most 32 flits"):
        net.check_traffic(MessageTraffic(0.5, 64))
    net.check_traffic(MessageTraffic(0.5, 64, 32))
