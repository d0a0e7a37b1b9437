"""The buffered crossbar's phases (paper 002), each called once on a hand-built state and checked by its rule.

Two ports, two priorities, Q_R = 2, delta_d = 1, delta_c = 2: flow f = (i * 2 + j) * 2 + p, crosspoint x = f // 2.
"""

import numpy as np

from switchq.models import Traffic
from switchq.validate import kernel as K
from switchq.validate.arch import cicq_cells as C
from switchq.validate.arch import cicq_phases as ph
from switchq.validate.arch import cicq_state as S


def _sw(sfc=True, replacement=True, lqf=True):
    return S.CicqArgs(n_ports=2, priorities=2, q_r=2, data_delay=1, credit_delay=2, sfc=sfc, speculate=sfc,
                      eager=True, rtx_limit=8, replacement=replacement, lqf=lqf, storage=8, pool_limit=1 << 20)


def _cell(sw, st, f, s):
    """The pool row of flow ``f``'s cell ``s``, giving the flow a zeroed block first if it has none (as its first
    cell would)."""
    if st.flows[S.RING, f] < 0:
        C.make_room(sw, st.cells, st.flows, st.heap, f)
        first = st.flows[S.BASE, f]
        st.cells[first:first + st.flows[S.RING, f] + 1] = 0
    return C.at(st.flows, f, s)


def _stats():
    return S.LAYOUT.zeros()


def _bit(st, row, port):
    return (st.masks[row, port >> 6] >> (port & 63)) & 1


def test_receive_flow_control_ack_returns_credit_nak_marks_resend_stale_nak_only_credit():
    sw = _sw()
    st = S.new_state(sw)
    lane = 1
    # Row 0: an ACK for flow 2 (x = 1) seq 4 and a NAK for flow 1 (x = 0) seq 6, copy 1 (the latest copy).
    st.flows[S.CREDITS, 1] = 0
    st.flows[S.RETX_PTR, 2] = 3
    st.ports[S.RTX_COUNT, 0] = 5
    st.links[S.ACK_FLOW, 0, lane] = 2
    st.links[S.ACK_SEQ, 0, lane] = 4
    st.flows[S.ACKED, 1] = 5
    st.flows[S.RETX_PTR, 1] = 8
    st.cells[_cell(sw, st, 1, 6), S.C_COPY] = 1
    st.links[S.NAK_KIND, 0, lane] = S.NAK
    st.links[S.NAK_FLOW, 0, lane] = 1
    st.links[S.NAK_SEQ, 0, lane] = 6
    st.links[S.NAK_COPY, 0, lane] = 1
    # Row 1: a NAK for flow 4 (x = 2) about copy 1 while copy 2 is out: stale, only the credit comes back.
    st.cells[_cell(sw, st, 4, 0), S.C_COPY] = 2
    st.cells[_cell(sw, st, 4, 0), S.C_STATE] = S.CRED
    st.links[S.NAK_KIND, 1, lane] = S.NAK
    st.links[S.NAK_FLOW, 1, lane] = 4
    st.links[S.NAK_SEQ, 1, lane] = 0
    st.links[S.NAK_COPY, 1, lane] = 1
    ph.receive_flow_control(sw, st, lane)
    assert st.flows[S.CREDITS, 1] == 1 and st.flows[S.ACKED, 2] == 5 and st.flows[S.RETX_PTR, 2] == 5
    assert st.ports[S.RTX_COUNT, 0] == 4                       # R4: a retransmission-buffer place freed
    assert st.flows[S.CREDITS, 0] == 3                         # R6: the NAK returns its credit
    assert st.cells[_cell(sw, st, 1, 6), S.C_STATE] == S.NAKED and st.flows[S.RETX_PTR, 1] == 6   # R7: resend
    assert st.flows[S.BLOCK_SEQ, 1] == 6 and _bit(st, 0, 0)    # §6.2 block; the VOQ is visited again
    assert st.flows[S.CREDITS, 2] == 3 and st.cells[_cell(sw, st, 4, 0), S.C_STATE] == S.CRED
    assert st.flows[S.BLOCK_SEQ, 4] == -1
    assert st.ports[S.EXTREMES, S.EXT_CREDIT_MAX] == 3
    assert st.links[S.ACK_FLOW, 0, lane] == -1 and (st.links[S.NAK_KIND, :, lane] == S.NO_MSG).all()


def test_enqueue_arrivals_puts_each_cell_unsent_at_the_tail_of_its_flow():
    sw = _sw()
    st = S.new_state(sw)
    tr = K.traffic_arrays(Traffic(1.0), 2)
    K.seed_rng(5)
    stats = _stats()
    ph.enqueue_arrivals(sw, st, tr, np.array([0.5, 1.0]), stats, K.parts(2), 7, 0)
    for i in range(2):
        d = st.arrivals[i]
        f = (i * 2 + d) * 2 + st.ports[S.BURST_PRIO, i]
        assert st.flows[S.TAIL, f] == 1
        assert tuple(st.cells[C.at(st.flows, f, 0), [S.C_ARRIVAL, S.C_FIRST, S.C_LAST, S.C_STATE]]) == (7, 7, 1,
                                                                                               S.UNSENT)
        assert st.flows[S.RING, f] + 1 == S.C0             # its first cell gave the flow the smallest block
        assert _bit(st, i, d)
    assert st.flows[S.TAIL].sum() == 2
    assert stats[S.LAYOUT.index("arrived")] == 2


def test_serve_inputs_resends_a_naked_cell_first_and_speculates_without_credit():
    sw = _sw()
    st = S.new_state(sw)
    t = 3
    # Input 0: flow 0 (output 0) has seq 0 NAKed and seq 1 unsent; flow 2 (output 1) has 3 unsent cells.
    st.flows[S.TAIL, 0], st.flows[S.SENT_HW, 0] = 2, 1
    st.cells[_cell(sw, st, 0, 0), S.C_STATE], st.cells[_cell(sw, st, 0, 0), S.C_COPY] = S.NAKED, 1
    _cell(sw, st, 2, 0)
    st.flows[S.BLOCK_SEQ, 0] = 0
    st.flows[S.TAIL, 2] = 3
    st.masks[0, 0] = 0b11
    # Input 1: flow 7 (output 1, priority 1) has an unsent cell but its crosspoint no credit.
    st.flows[S.TAIL, 7] = 1
    _cell(sw, st, 7, 0)
    st.flows[S.CREDITS, 3] = 0
    st.masks[1, 0] = 0b10
    stats = _stats()
    ph.serve_inputs(sw, st, stats, t)
    idx = t % 2
    # R7: the resend before the longer VOQ of unsent cells; credited, lifting the §6.2 block.
    assert tuple(st.links[[S.DATA_FLOW, S.DATA_SEQ, S.DATA_COPY, S.DATA_CREDITED], 0, idx]) == (0, 0, 2, 1)
    assert st.flows[S.RETX_PTR, 0] == 1 and st.flows[S.BLOCK_SEQ, 0] == -1 and st.flows[S.CREDITS, 0] == 1
    assert st.cells[_cell(sw, st, 0, 0), S.C_STATE] == S.CRED and st.ports[S.RR_IN, 0] == 1
    # R1/R6: no credit, so speculative, and the credit count goes negative.
    assert tuple(st.links[[S.DATA_FLOW, S.DATA_SEQ, S.DATA_COPY, S.DATA_CREDITED], 1, idx]) == (7, 0, 1, 0)
    assert st.flows[S.CREDITS, 3] == -1 and st.flows[S.SENT_HW, 7] == 1
    assert st.cells[_cell(sw, st, 7, 0), S.C_STATE] == S.SPEC
    assert st.ports[S.RTX_COUNT, 1] == 1 and st.ports[S.EXTREMES, S.EXT_CREDIT_MIN] == -1
    assert st.ports[S.EXTREMES, S.EXT_RTX_MAX] == 1
    got = {k: stats[S.LAYOUT.index(k)] for k in ("transmissions", "retransmissions", "speculative_transmissions")}
    assert got == {"transmissions": 2, "retransmissions": 1, "speculative_transmissions": 1}


def test_accept_at_crosspoints_replaces_a_lower_priority_and_naks_out_of_order():
    sw = _sw()
    st = S.new_state(sw)
    t, lane = 0, 1
    arrive = (t + 1) % 2
    # Row 0: flow 0 (priority 0) seq 0 reaches crosspoint 0, full with two cells of flow 1 (priority 1).
    st.links[[S.DATA_FLOW, S.DATA_SEQ, S.DATA_COPY, S.DATA_CREDITED], 0, arrive] = (0, 0, 1, 0)
    st.flows[S.XP_LEN, 1], st.flows[S.XP_TOTAL, 0], st.flows[S.EXPECTED, 1] = 2, 2, 7
    st.xp[S.XP_SEQ, 1, :2], st.xp[S.XP_COPY, 1, :2] = (5, 6), (1, 3)
    # Row 1: flow 4 seq 3 arrives while the crosspoint expects seq 1.
    st.links[[S.DATA_FLOW, S.DATA_SEQ, S.DATA_COPY, S.DATA_CREDITED], 1, arrive] = (4, 3, 1, 1)
    st.flows[S.EXPECTED, 4] = 1
    stats = _stats()
    ph.accept_at_crosspoints(sw, st, stats, t, lane)
    # §3.2: the newest cell of the lower priority goes, NAKed as a replacement; the arrival is stored.
    assert tuple(st.links[[S.NAK_KIND, S.NAK_FLOW, S.NAK_SEQ, S.NAK_COPY], 0, lane]) == (S.REPLACED, 1, 6, 3)
    assert st.flows[S.XP_LEN, 1] == 1 and st.flows[S.EXPECTED, 1] == 6
    assert st.flows[S.XP_LEN, 0] == 1 and st.xp[S.XP_SEQ, 0, 0] == 0 and st.flows[S.EXPECTED, 0] == 1
    assert st.flows[S.XP_TOTAL, 0] == 2 and _bit(st, 2 + 0, 0)
    # R2: out of order, dropped and NAKed.
    assert tuple(st.links[[S.NAK_KIND, S.NAK_FLOW, S.NAK_SEQ], 1, lane]) == (S.NAK, 4, 3)
    assert st.flows[S.XP_LEN, 4] == 0
    assert (st.links[S.DATA_FLOW, :, arrive] == -1).all()
    got = {k: stats[S.LAYOUT.index(k)] for k in ("naks", "replacements", "out_of_order_drops", "duplicates")}
    assert got == {"naks": 2, "replacements": 1, "out_of_order_drops": 1, "duplicates": 0}


def test_accept_at_crosspoints_drops_duplicates_silently_and_full_without_replacement():
    sw = _sw(replacement=False)
    st = S.new_state(sw)
    t, lane = 0, 0
    arrive = (t + 1) % 2
    st.links[[S.DATA_FLOW, S.DATA_SEQ, S.DATA_COPY, S.DATA_CREDITED], 0, arrive] = (0, 0, 2, 1)
    st.flows[S.EXPECTED, 0] = 1
    st.links[[S.DATA_FLOW, S.DATA_SEQ, S.DATA_COPY, S.DATA_CREDITED], 1, arrive] = (4, 0, 1, 1)
    st.flows[S.XP_TOTAL, 2] = 2
    stats = _stats()
    ph.accept_at_crosspoints(sw, st, stats, t, lane)
    assert tuple(st.links[[S.NAK_KIND, S.NAK_FLOW, S.NAK_SEQ], 0, lane]) == (S.DUP_CREDIT, 0, 0)
    assert tuple(st.links[[S.NAK_KIND, S.NAK_FLOW, S.NAK_SEQ], 1, lane]) == (S.NAK, 4, 0)
    assert st.flows[S.XP_LEN, 4] == 0 and st.flows[S.EXPECTED, 4] == 0
    got = {k: stats[S.LAYOUT.index(k)] for k in ("naks", "duplicates", "credited_drops")}
    assert got == {"naks": 1, "duplicates": 1, "credited_drops": 1}


def test_serve_outputs_takes_strict_priority_then_longest_queue_counts_and_queues_the_ack():
    sw = _sw()
    st = S.new_state(sw)
    t = 10
    # Output 0: flow 4 (input 1, priority 0) holds one cell, flow 1 (input 0, priority 1) two.
    st.flows[S.XP_LEN, 4], st.flows[S.XP_TOTAL, 2] = 1, 1
    st.flows[S.XP_LEN, 1], st.flows[S.XP_TOTAL, 0] = 2, 2
    st.xp[S.XP_SEQ, 1, :2] = (0, 1)
    st.cells[_cell(sw, st, 4, 0), [S.C_ARRIVAL, S.C_FIRST, S.C_LAST]] = (3, 2, 1)
    for f in (1, 2, 6):
        _cell(sw, st, f, 0)
    st.masks[2 + 0, 0] = 0b11
    # Output 1: flow 2 (input 0) one cell, flow 6 (input 1) two, its head seq 5 while seq 4 is due.
    st.flows[S.XP_LEN, 2], st.flows[S.XP_TOTAL, 1] = 1, 1
    st.flows[S.XP_LEN, 6], st.flows[S.XP_TOTAL, 3] = 2, 2
    st.xp[S.XP_SEQ, 6, :2] = (5, 6)
    st.flows[S.DELIV_NEXT, 6] = 4
    st.masks[2 + 1, 0] = 0b11
    stats = _stats()
    ph.serve_outputs(sw, st, stats, K.parts(2), t, 0)
    assert st.flows[S.XP_LEN, 4] == 0 and st.flows[S.XP_LEN, 1] == 2     # strict priority over a longer queue
    assert not _bit(st, 2 + 0, 1) and _bit(st, 2 + 0, 0)                   # crosspoint (1, 0) now empty
    assert st.flows[S.XP_LEN, 6] == 1 and st.flows[S.XP_LEN, 2] == 1     # LQF within a priority
    assert st.flows[S.XP_HEAD, 6] == 1 and st.flows[S.DELIV_NEXT, 6] == 6
    assert stats[S.ORDER_ERRORS] == 1
    # Flow 4's cell ends its burst: wait 10 - 3, latency 10 - 2 + 1 (§5), counted for priority 0.
    assert stats[S.LAT_SUM_P + 0] == 9 and stats[S.LAT_COUNT_P + 0] == 1
    assert stats[S.LAYOUT.index("m_wait_sum")] == 7 + (10 - 0)
    # R3: both ACKs wait at row 1, in output order.
    assert st.ports[S.ACKQ_LEN, 1] == 2 and st.ports[S.ACKQ_LEN, 0] == 0
    assert tuple(st.ackq[S.AQ_FLOW, 1, :2]) == (4, 6) and tuple(st.ackq[S.AQ_SEQ, 1, :2]) == (0, 5)
    assert tuple(st.ports[S.RR_OUT, :2]) == (0, 0)


def test_emit_acks_sends_at_most_one_ack_per_row_per_slot():
    sw = _sw()
    st = S.new_state(sw)
    st.ackq[S.AQ_FLOW, 0, :2] = (3, 2)
    st.ackq[S.AQ_SEQ, 0, :2] = (8, 9)
    st.ports[S.ACKQ_LEN, 0] = 2
    ph.emit_acks(sw, st, 1)
    assert st.links[S.ACK_FLOW, 0, 1] == 3 and st.links[S.ACK_SEQ, 0, 1] == 8
    assert st.ports[S.ACKQ_LEN, 0] == 1 and st.ports[S.ACKQ_HEAD, 0] == 1
    assert st.links[S.ACK_FLOW, 1, 1] == -1 and st.ports[S.ACKQ_LEN, 1] == 0


def test_a_flow_block_doubles_as_it_fills_and_goes_back_to_the_pool_once_acknowledged():
    # The line cards' pool (issue 38): a flow's first cell takes C0 rows, its C0 + 1st a block twice the size with
    # its cells copied in sequence order, the old block going to the free list of its size; once its last cell
    # is acknowledged the block goes back, and its next cell takes back one of that size.
    sw = _sw()
    st = S.new_state(sw)
    tr = K.traffic_arrays(Traffic(1.0, pattern="unbalanced", unbalanced_w=1.0), 2)   # input i to output i
    stats = _stats()
    for t in range(S.C0 + 1):
        ph.enqueue_arrivals(sw, st, tr, np.array([1.0, 1.0]), stats, K.parts(2), t, 0)
    f = 0                                                  # input 0, output 0, priority 0
    assert st.flows[S.TAIL, f] == S.C0 + 1 and st.flows[S.RING, f] + 1 == 2 * S.C0
    assert [st.cells[C.at(st.flows, f, s), S.C_ARRIVAL] for s in range(S.C0 + 1)] == list(range(S.C0 + 1))
    small = st.heap[0]                                     # a C0 block on its free list
    assert small >= 0 and st.heap[S.H_TOP] == 2 * S.C0 + 2 * 2 * S.C0   # two first blocks, two doubled
    block = st.flows[S.BASE, f]
    st.links[S.ACK_FLOW, 0, 0], st.links[S.ACK_SEQ, 0, 0] = f, S.C0      # every cell of the flow acknowledged
    st.flows[S.SENT_HW, f] = S.C0 + 1
    ph.receive_flow_control(sw, st, 0)
    assert st.flows[S.RING, f] == -2 * S.C0 and st.heap[1] == block    # no block; its own on the free list
    ph.enqueue_arrivals(sw, st, tr, np.array([1.0, 1.0]), stats, K.parts(2), 9, 0)
    assert st.flows[S.BASE, f] == block and st.flows[S.RING, f] + 1 == 2 * S.C0
    assert st.cells[C.at(st.flows, f, S.C0 + 1), S.C_ARRIVAL] == 9 and st.heap[1] == -1
