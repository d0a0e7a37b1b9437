"""Each phase of the multicast kernel (validate/arch/multicast.py) on a hand-built state, called once."""

import numpy as np

from switchq.models.fanout import fanout_pmf
from switchq.validate import kernel as K
from switchq.validate.arch import multicast as M

N, INPUTS, STORAGE = 4, 2, 8


def _sw(mode=M.IQ_SPLIT, q=2, load=1.0, n=N, inputs=INPUTS):
    return M.MulticastArgs(n_ports=n, inputs=inputs, mode=mode, q=q, load=load, poisson=False, storage=STORAGE)


def _state(sw):
    fifo, ins, xq, xs, pool, pool_n, grants, order, scratch = M._new_state(sw)
    return dict(fifo=fifo, ins=ins, xq=xq, xs=xs, pool=pool, pool_n=pool_n, grants=grants, order=order,
                scratch=scratch)


def _push(s, i, arrival, dest, left=None):
    """Put a packet (arrival slot, destination mask) at the tail of input i's FIFO."""
    fifo, ins = s["fifo"], s["ins"]
    e = (ins[M.I_HEAD, i] + ins[M.I_LEN, i]) % STORAGE
    fifo[M.F_ARR, i, e] = arrival
    fifo[M.F_SET, i, e] = dest
    fifo[M.F_LEFT, i, e] = dest if left is None else left
    ins[M.I_LEN, i] += 1


def _named(stats):
    return M.LAYOUT.named(stats)


def test_new_state_is_empty_with_full_credits_and_every_pool_slot_free():
    sw = _sw(M.OQ_CROSSPOINT, q=3)
    s = _state(sw)
    assert s["ins"].sum() == 0 and s["fifo"].sum() == 0
    assert (s["xs"][M.X_CREDITS] == 3).all() and s["xs"][M.X_LEN].sum() == 0
    size = 3 * N + 1
    assert list(s["pool_n"]) == [size] * INPUTS + [0]
    assert (s["pool"][M.P_FREE] == np.arange(size)).all()
    assert (s["grants"][M.G_PICK] == -1).all() and s["xq"].shape[2] == 4   # a ring of Q rounded up to 2^k


def test_arrivals_at_load_one_put_one_packet_of_the_fanout_at_each_tail():
    sw = _sw(load=1.0)
    s = _state(sw)
    _push(s, 1, 0, 0b1)     # input 1 already holds a packet: the new one goes behind it
    size_cdf = np.cumsum(fanout_pmf(N, 2, "fixed"))
    stats, parts = M.LAYOUT.zeros(), K.parts(INPUTS)
    K.seed_rng(1)
    M._arrivals(5, 0, sw, size_cdf, s["fifo"], s["ins"], s["scratch"], stats, parts)
    ins, fifo = s["ins"], s["fifo"]
    assert list(ins[M.I_LEN]) == [1, 2]
    assert ins[M.I_HOL, 0] == 5 and ins[M.I_HOL, 1] == 0   # only a packet reaching an empty FIFO is at the head
    for i, e in ((0, 0), (1, 1)):
        assert fifo[M.F_ARR, i, e] == 5
        assert bin(int(fifo[M.F_SET, i, e])).count("1") == 2
        assert fifo[M.F_LEFT, i, e] == fifo[M.F_SET, i, e] and fifo[M.F_SET, i, e] < 1 << N
    st = _named(stats)
    assert st["arrived"] == 2 and st["copies_owed"] == 4 and list(parts[0]) == [1, 1]


def test_crosspoint_send_moves_a_hol_packet_to_its_crosspoints_only_when_every_one_has_a_credit():
    sw = _sw(M.OQ_CROSSPOINT, q=2)
    s = _state(sw)
    _push(s, 0, 3, 0b0101)          # outputs 0 and 2, credits free
    _push(s, 1, 4, 0b0010)          # output 1, whose crosspoint has no credit
    xs, xq, pool, pool_n = s["xs"], s["xq"], s["pool"], s["pool_n"]
    xs[M.X_CREDITS, 1 * N + 1] = 0
    M._crosspoint_send(7, sw, s["fifo"], s["ins"], xq, xs, pool, pool_n)
    assert list(s["ins"][M.I_LEN]) == [0, 1] and s["ins"][M.I_HEAD, 0] == 1
    slot = 2 * N     # the top of input 0's free stack
    assert pool_n[0] == 2 * N and pool_n[INPUTS] == 1
    assert (pool[M.P_ARR, 0, slot], pool[M.P_SET, 0, slot], pool[M.P_LEFT, 0, slot]) == (3, 0b0101, 2)
    for j in range(N):
        x = 0 * N + j
        if j in (0, 2):
            assert xs[M.X_LEN, x] == 1 and xs[M.X_CREDITS, x] == 1
            assert xq[M.X_PKT, x, 0] == slot and xq[M.X_TIME, x, 0] == 7
        else:
            assert xs[M.X_LEN, x] == 0 and xs[M.X_CREDITS, x] == 2
    assert xs[M.X_LEN, 1 * N + 1] == 0


def test_crosspoint_outputs_send_the_oldest_copy_and_a_last_copy_returns_every_credit():
    sw = _sw(M.OQ_CROSSPOINT, q=2)
    s = _state(sw)
    xs, xq, pool, pool_n = s["xs"], s["xq"], s["pool"], s["pool_n"]
    # Input 0's packet (pool slot 0, outputs 0 and 1) sent at 5; input 1's (slot 0, output 0 only) at 3.
    for i, dest, left, sent in ((0, 0b0011, 2, 5), (1, 0b0001, 1, 3)):
        pool_n[i] -= 1
        pool[M.P_ARR, i, 0], pool[M.P_SET, i, 0], pool[M.P_LEFT, i, 0] = sent - 1, dest, left
        for j in range(N):
            if dest >> j & 1:
                x = i * N + j
                xq[M.X_PKT, x, 0], xq[M.X_TIME, x, 0] = 0, sent
                xs[M.X_LEN, x] = 1
                xs[M.X_CREDITS, x] -= 1
    pool_n[INPUTS] = 2
    stats, parts = M.LAYOUT.zeros(), K.parts(INPUTS)
    M._crosspoint_outputs(9, 0, sw, xq, xs, pool, pool_n, stats, parts)
    # Output 0 sends input 1's copy (sent at 3), output 1 input 0's: input 1's packet is done, input 0's is not.
    assert xs[M.X_LEN, 0 * N + 0] == 1 and xs[M.X_LEN, 1 * N + 0] == 0 and xs[M.X_LEN, 0 * N + 1] == 0
    assert pool[M.P_LEFT, 0, 0] == 1 and pool[M.P_LEFT, 1, 0] == 0
    assert xs[M.X_CREDITS, 1 * N + 0] == 2 and xs[M.X_CREDITS, 0 * N + 0] == 1 and xs[M.X_CREDITS, 0 * N + 1] == 1
    assert pool_n[1] == 2 * N + 1 and pool_n[0] == 2 * N and pool_n[INPUTS] == 1
    st = _named(stats)
    assert st["copies"] == 2 and st["m_copies"] == 2 and st["delivered"] == 1
    assert st["m_wait_sum"] == 9 - 2


def test_split_grants_pick_a_hol_packet_that_needs_the_output_and_wba_the_heaviest():
    sw = _sw(M.IQ_SPLIT)
    s = _state(sw)
    _push(s, 0, 0, 0b1111, left=0b0001)    # still needs output 0 only
    _push(s, 1, 0, 0b0100)
    K.seed_rng(2)
    M._split_grants(10, sw, s["fifo"], s["ins"], s["grants"])
    assert list(s["grants"][M.G_PICK]) == [0, -1, 1, -1]
    # WBA: both need output 3; input 1 has been at the head 6 slots longer, residues 2 and 1: weights 4 vs -1.
    sw = _sw(M.IQ_WBA)
    s = _state(sw)
    _push(s, 0, 0, 0b1001)
    _push(s, 1, 0, 0b1000)
    s["ins"][M.I_HOL] = [10, 4]
    M._split_grants(10, sw, s["fifo"], s["ins"], s["grants"])
    g = s["grants"]
    assert g[M.G_PICK, 3] == 1 and g[M.G_BEST, 3] == 5 and g[M.G_OFFERS, 3] == 1
    assert g[M.G_PICK, 0] == 0 and g[M.G_BEST, 0] == -2


def test_split_transfer_takes_each_picked_copy_and_counts_it_while_measuring():
    sw = _sw(M.IQ_SPLIT)
    s = _state(sw)
    _push(s, 0, 0, 0b0111)
    s["grants"][M.G_PICK] = [0, -1, 0, -1]
    stats = M.LAYOUT.zeros()
    M._split_transfer(3, 5, sw, s["fifo"], s["ins"], s["grants"], stats)   # slot 3, measured from 5
    assert s["fifo"][M.F_LEFT, 0, 0] == 0b0010 and s["fifo"][M.F_SET, 0, 0] == 0b0111
    assert _named(stats)["copies"] == 2 and _named(stats)["m_copies"] == 0


def test_split_departures_take_out_the_hol_packets_with_nothing_left():
    sw = _sw(M.IQ_SPLIT)
    s = _state(sw)
    _push(s, 0, 2, 0b0011, left=0)
    _push(s, 0, 3, 0b0100)
    _push(s, 1, 2, 0b0001)
    stats, parts = M.LAYOUT.zeros(), K.parts(INPUTS)
    M._split_departures(6, 0, sw, s["fifo"], s["ins"], stats, parts)
    ins = s["ins"]
    assert list(ins[M.I_LEN]) == [1, 1] and list(ins[M.I_HEAD]) == [1, 0]
    assert ins[M.I_HOL, 0] == 7 and ins[M.I_HOL, 1] == 0   # the next packet is at the head from the next slot
    st = _named(stats)
    assert st["delivered"] == 1 and st["m_wait_sum"] == 4 and list(parts[1]) == [-1, 0]


def test_nosplit_send_sends_whole_packets_whose_outputs_are_all_free():
    sw = _sw(M.IQ_NOSPLIT, inputs=3)
    s = _state(sw)
    _push(s, 0, 1, 0b0011)
    _push(s, 1, 1, 0b0110)      # overlaps input 0: only one of the two goes
    _push(s, 2, 1, 0b1000)      # free whatever the order
    stats, parts = M.LAYOUT.zeros(), K.parts(3)
    K.seed_rng(3)
    M._nosplit_send(4, 0, sw, s["fifo"], s["ins"], s["order"], stats, parts)
    lens = list(s["ins"][M.I_LEN])
    assert lens[2] == 0 and sorted(lens[:2]) == [0, 1]
    assert sorted(s["order"]) == [0, 1, 2]
    st = _named(stats)
    assert st["delivered"] == 2 and st["copies"] == 3 and st["m_copies"] == 3


def test_account_counts_the_packets_queued_and_pooled():
    sw = _sw(M.OQ_CROSSPOINT)
    s = _state(sw)
    s["ins"][M.I_LEN] = [2, 1]
    s["pool_n"][INPUTS] = 4
    stats, parts = M.LAYOUT.zeros(), K.parts(INPUTS)
    M._account(sw, stats, parts, s["ins"], s["pool_n"])
    assert _named(stats)["queued"] == 7
