"""What a sender knows of the next switch (validate/arch/flit/cut_through_view.py): a credit's return trip and
aged queue lengths, two readings of what paper 000 leaves unsaid, on hand-built states and end to end."""

import numpy as np
import pytest

from switchq.errors import InputError
from switchq.models.flit import FlitNetwork, FlitSwitch, MessageTraffic
from switchq.validate import kernel as K
from switchq.validate.arch import flit as F
from switchq.validate.arch.flit import cut_through_state as C
from switchq.validate.arch.flit.arguments import cut_through_arguments
from switchq.validate.arch.flit.cut_through_outputs import next_queue
from switchq.validate.arch.flit.cut_through_view import aged_base, free_later, remember_loads, return_credits
from switchq.validate.arch.flit.org_fifo import commit
from switchq.validate.arch.flit.records import I_USED, IW, ORG


def _state(net):
    tab, sw, tr = cut_through_arguments(net, MessageTraffic(0.5))
    dm = C.dims(tab, sw)
    return sw, dm, C.new_state(dm, sw), C.tables(tab, tr, dm)


def test_a_freed_place_is_usable_upstream_only_when_its_credit_has_come_back():
    sw, dm, S, _ = _state(FlitNetwork.single(8, FlitSwitch(8, "damq", 16), credit_delay=3))
    q, gi = 2 * 8 + 5, 2                             # input 2's queue for output 5
    assert commit(sw, S, q, gi) and S[C.QFLITS, q] == 1 and S[C.INB, gi * IW + I_USED] == 1
    free_later(10, ORG["damq"], sw, dm, S, q, gi, 5)  # read at cycle 10 through output 5
    for t in (11, 12):
        return_credits(t, ORG["damq"], sw, dm, S)
        assert S[C.INB, gi * IW + I_USED] == 1        # still counted as taken by its sender
    return_credits(13, ORG["damq"], sw, dm, S)        # 10 + 3: the credit is back
    assert S[C.INB, gi * IW + I_USED] == 0 and S[C.QFLITS, q] == 0 and not S[C.CREDIT].any()


def test_without_a_credit_delay_the_place_is_free_at_once():
    sw, dm, S, _ = _state(FlitNetwork.single(8, FlitSwitch(8, "fifo", 16)))
    assert commit(sw, S, 8, 1)
    free_later(10, ORG["fifo"], sw, dm, S, 8, 1, 3)
    assert S[C.INB, 1 * IW + I_USED] == 0


def test_the_adaptive_choice_reads_queue_lengths_as_they_were_routing_age_cycles_ago():
    sw, dm, S, T = _state(FlitNetwork.bmin(16, FlitSwitch(8, "damq", 64), routing_age=4))
    org = ORG["damq"]
    # a switch input and destination with a choice of up ports
    target, dest = next((s, v) for s in range(dm.n_sw) for v in range(dm.nodes)
                        if bin(C.allowed(T, dm, s, v)).count("1") >= 2)
    mask = C.allowed(T, dm, target, dest)
    a, b = [o for o in range(dm.k) if (mask >> o) & 1][:2]
    gi2 = target * dm.k
    others = [o for o in range(dm.k) if (mask >> o) & 1 and o != a]
    # At cycle 100 every choice but a is loaded; from cycle 101 on only a is.
    for o in others:
        S[C.QFLITS, gi2 * dm.k + o] = 9
    remember_loads(100, org, sw, dm, S)
    for o in others:
        S[C.QFLITS, gi2 * dm.k + o] = 0
    S[C.QFLITS, gi2 * dm.k + a] = 9
    for t in range(101, 105):
        remember_loads(t, org, sw, dm, S)
    assert aged_base(104, sw, dm) == (100 % 8) * dm.qp            # a ring of 8 snapshots (above 4)
    K.seed_rng(1)
    assert next_queue(104, org, sw, dm, S, T, target, gi2, dest) == gi2 * dm.k + a      # what it knew at 100
    remember_loads(105, org, sw, dm, S)
    assert next_queue(105, org, sw, dm, S, T, target, gi2, dest) != gi2 * dm.k + a      # at 101: a is loaded


@pytest.mark.parametrize("delay", [8, 32, 64])
def test_a_buffer_smaller_than_the_credit_loop_carries_buffer_over_loop_flits_a_cycle(delay):
    # Dally & Towles §13.3: each of the B places is reused once per credit loop, so a link carries B / loop flits
    # a cycle when B is below it. Here a place is taken when its flit is sent (cycle t), read link_delay (1) +
    # bypass_cycles (2) later, and usable again `delay` cycles after that: loop = delay + 3. Two nodes on a
    # 2-port crossbar, each sending 8-flit messages to the other at full load, 8-flit buffers.
    net = FlitNetwork.single(2, FlitSwitch(2, "fifo", 8), credit_delay=delay)
    stats = F.replicate(net, MessageTraffic(1.0, 8), K.Run(slots=20_000, warmup=2_000, drain=0, seed=1))
    c = F.LAYOUT.named(stats)
    carried = c["m_flits_received"] / (2 * 20_000)
    # 0.5 % of the rate: the measured window cuts a loop or two at each end (2 of the ~600-2500 loops measured)
    assert carried == pytest.approx(8 / (delay + 3), rel=5e-3)


def test_routing_age_is_refused_where_no_route_chooses_its_queue():
    with pytest.raises(InputError, match="routing_age"):
        FlitNetwork.bmin(16, FlitSwitch(8, "fifo"), routing_age=4)
    with pytest.raises(InputError, match="credit_delay"):
        FlitNetwork.bmin(16, FlitSwitch(8, "hipiqs"), credit_delay=-1)
