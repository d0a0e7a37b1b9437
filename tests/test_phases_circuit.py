"""The circuit kernel's phases (validate/arch/circuit.py) on a hand-built state, each called once."""

import numpy as np

from switchq.models.circuit import CircuitSwitch, CircuitTraffic
from switchq.validate import kernel as K
from switchq.validate.arch import circuit as C


def _trace(room):
    return C.Trace(inp=np.zeros(room, np.int64), out=np.zeros(room, np.int64), held_from=np.zeros(room, np.int64),
                   until=np.zeros(room, np.int64), size=np.zeros(room, np.int64), count=np.zeros(1, np.int64))


def _state(n, slots, groups=1):
    pk = (np.full((n, slots), -1, np.int64), np.zeros((n, slots), np.int64), np.zeros((n, slots), np.int64))
    train = (np.zeros((n, groups), np.int64), np.zeros((n, groups), np.int64), np.zeros((n, groups), np.int64))
    ports = (np.zeros(n, np.bool_), np.full(n, -1, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
             np.zeros(n, np.int64))
    heap = (np.zeros(n + 1, np.int64), np.zeros(n + 1, np.int64), np.zeros(1, np.int64))
    return pk, train, ports, heap


def test_record_keeps_a_circuit_while_the_trace_has_room_and_drops_it_after():
    tr = _trace(1)
    C._record(tr, 2, 3, 1000, 21000, 2000)
    assert (tr.inp[0], tr.out[0], tr.held_from[0], tr.until[0], tr.size[0], tr.count[0]) == (2, 3, 1000, 21000, 2000, 1)
    C._record(tr, 1, 0, 5000, 9000, 10)        # full: nothing written, the count stays
    assert tr.count[0] == 1 and tr.inp[0] == 2


def test_hold_takes_input_and_output_until_the_transfer_ends_and_traces_it():
    sw = C._args(CircuitSwitch(4), CircuitTraffic(seconds=0.001), 1)   # 800 Mb/s: 10 ns a byte, 1 us ticks
    pk, _, ports, _ = _state(4, 1)
    pk[0][1, 0], pk[1][1, 0] = 3, 2000
    tr = _trace(2)
    end = C._hold(sw, 1, 3, 0, 7000, 12000, pk[1], *ports, tr)
    out_busy, out_of, cur, tr_start, out_until = ports
    assert end == 12000 + 20000
    assert out_busy[3] and out_of[1] == 3 and cur[1] == 0 and tr_start[1] == 12000 and out_until[3] == end
    assert not out_busy[[0, 1, 2]].any() and list(out_of) == [-1, 3, -1, -1]
    assert tr.count[0] == 1 and (tr.inp[0], tr.out[0], tr.held_from[0], tr.until[0], tr.size[0]) == (1, 3, 7000, end,
                                                                                                     2000)


def test_start_fills_every_slot_points_each_round_robin_and_schedules_each_first_attempt():
    switch, traffic = CircuitSwitch(4, scheduling="window", window=3), CircuitTraffic(seconds=0.001)
    sw, mix = C._args(switch, traffic, 1), C._mix(switch, traffic, 1)
    pk, train, _, heap = _state(4, 3)
    ptr = np.full(4, -1, np.int64)
    stats = C.LAYOUT.zeros()
    K.seed_rng(5)
    C._start(sw, mix, train, pk, ptr, heap, stats)
    sd, ss, se = pk
    for i in range(4):
        assert all(0 <= d < 4 and d != i for d in sd[i])   # to the other nodes
    assert (ss == 2000).all() and (se == 0).all() and ((0 <= ptr) & (ptr < 3)).all()
    heap_t, heap_c, size = heap
    assert size[0] == 4 and sorted(heap_c[:4]) == [0, 2, 4, 6]    # each input's check event
    assert ((heap_t[:4] >> sw.order_bits) == sw.check_ns).all()
    st = C.LAYOUT.named(stats)
    assert st["arrived"] == 12 and st["bytes_arrived"] == 12 * 2000


def test_finish_accounts_the_circuits_still_held_and_the_packets_still_queued():
    sw = C._args(CircuitSwitch(3, scheduling="window", window=2), CircuitTraffic(seconds=0.001, warmup_seconds=0.0005),
                 1)
    pk, _, ports, _ = _state(3, 2)
    sd, ss, _ = pk
    sd[0] = [1, 2]
    ss[0] = [100, 300]
    sd[2, 0], ss[2, 0] = 0, 50
    out_busy, out_of, cur, tr_start, out_until = ports
    out_of[2], tr_start[2] = 0, sw.end_ns - 4000     # input 2 has sent for 4 us at the end
    stats = C.LAYOUT.zeros()
    C._finish(sw, pk, ports, stats)
    st = C.LAYOUT.named(stats)
    assert st["queued"] == 3 and st["bytes_queued"] == 450 and st["m_busy_ns"] == 4000


def test_an_attempt_on_a_free_output_holds_it_from_now_and_transfers_after_the_set_up():
    # Distributed control, claim at the request: select 2 us, set-up 5 us; 2000 B at 800 Mb/s last 20 us.
    sw = C._args(CircuitSwitch(4), CircuitTraffic(seconds=0.001, warmup_seconds=0), 1)
    pk, _, ports, _ = _state(4, 1)
    sd, ss, _ = pk
    sd[2, 0], ss[2, 0] = 1, 2000
    ptr, stats, tr = np.zeros(4, np.int64), C.LAYOUT.zeros(), _trace(1)
    new_t, code = C._attempt(sw, 9000, 2, sd, ss, ptr, np.zeros((4, 4), np.int64), *ports, stats, tr)
    assert (new_t, code) == (9000 + 5000 + 20000, 2 * 2 + C.EV_END)
    assert ports[0][1] and ports[1][2] == 1 and ports[3][2] == 14000 and ports[4][1] == new_t
    assert (tr.held_from[0], tr.until[0]) == (9000, new_t) and stats[C._ATTEMPTS] == 1


def test_a_fifo_attempt_on_a_busy_output_skips_to_the_first_retry_that_can_succeed_and_counts_the_others():
    # Retries every select + set-up = 7 us; the output is held until 30 us. Attempts at 0, 7, 14, 21, 28 us
    # all fail (5 counted), and the first at or after 30 us is at 35 us.
    sw = C._args(CircuitSwitch(4), CircuitTraffic(seconds=0.001, warmup_seconds=0), 1)
    pk, _, ports, _ = _state(4, 1)
    sd, ss, _ = pk
    sd[0, 0], ss[0, 0] = 3, 2000
    ports[0][3], ports[4][3] = True, 30000
    ptr, stats = np.zeros(4, np.int64), C.LAYOUT.zeros()
    new_t, code = C._attempt(sw, 0, 0, sd, ss, ptr, np.zeros((4, 4), np.int64), *ports, stats, _trace(0))
    assert (new_t, code, stats[C._ATTEMPTS]) == (35000, C.EV_CHECK, 5)
    assert ports[1][0] == -1 and ptr[0] == 0          # nothing held, the same packet next time


def test_a_window_attempt_on_a_busy_output_moves_the_round_robin_to_the_next_packet():
    sw = C._args(CircuitSwitch(4, scheduling="window", window=3), CircuitTraffic(seconds=0.001, warmup_seconds=0), 1)
    pk, _, ports, _ = _state(4, 3)
    sd, ss, _ = pk
    sd[1] = [2, -1, 3]
    ports[0][2] = True
    ptr, stats = np.zeros(4, np.int64), C.LAYOUT.zeros()
    new_t, code = C._attempt(sw, 4000, 1, sd, ss, ptr, np.zeros((4, 4), np.int64), *ports, stats, _trace(0))
    assert (new_t, code, ptr[1], stats[C._ATTEMPTS]) == (4000 + 7000, 1 * 2 + C.EV_CHECK, 2, 1)


def test_a_release_frees_both_ports_delivers_and_moves_the_window_up_behind_a_new_packet():
    switch, traffic = CircuitSwitch(4, scheduling="window", window=3), CircuitTraffic(seconds=0.001, warmup_seconds=0)
    sw, mix = C._args(switch, traffic, 1), C._mix(switch, traffic, 1)
    pk, train, ports, _ = _state(4, 3)
    sd, ss, se = pk
    sd[0], ss[0], se[0] = [1, 2, 3], [2000, 2000, 2000], [100, 200, 300]
    out_busy, out_of, cur, tr_start, _ = ports
    out_busy[2], out_of[0], cur[0], tr_start[0] = True, 2, 1, 10000     # slot 1's packet, to output 2
    ptr, stats = np.ones(4, np.int64), C.LAYOUT.zeros()
    K.seed_rng(3)
    C._release(sw, 30000, 0, mix, *train, sd, ss, se, ptr, np.zeros((4, 4), np.int64), out_busy, out_of, cur,
               tr_start, stats)
    assert not out_busy[2] and out_of[0] == -1
    assert list(sd[0, :2]) == [1, 3] and list(se[0]) == [100, 300, 30000] and sd[0, 2] in (1, 2, 3)
    st = C.LAYOUT.named(stats)
    assert (st["delivered"], st["m_delivered"], st["m_delay_sum_ns"], st["m_busy_ns"]) == (1, 1, 30000 - 200, 20000)
    assert st["arrived"] == 1 and ptr[0] == 1         # "next": the round robin stays at the slot now holding 3
