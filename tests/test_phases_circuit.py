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
    end = C._hold(sw, 1, 3, 0, 7000, 12000, pk, ports, tr)
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
