"""The cut-through kernel's pools grow with what the load puts in flight, never change a result, and a run the
machine's memory cannot hold is refused with the figure (issue 38; validate/arch/flit/cut_through_pools.py)."""

import hashlib

import numpy as np
import pytest

from switchq.errors import InputError
from switchq.models.flit import FlitNetwork, FlitSwitch, MessageTraffic
from switchq.validate import kernel as K
from switchq.validate.arch import flit, memory
from switchq.validate.arch.flit import cut_through as CT
from switchq.validate.arch.flit import cut_through_pools as P
from switchq.validate.arch.flit import cut_through_state as C
from switchq.validate.arch.flit.arguments import cut_through_arguments
from switchq.validate.arch.flit.cut_through_inject import inject
from switchq.validate.arch.flit.records import E_CLAIM, E_DOWN, E_GI, E_LT, E_NEXT, E_OI, LAYOUT, TRACE_COLUMNS
from switchq.validate.arch.flit.state import entries

RUN = K.Run(slots=3000, warmup=500, drain=1000, seed=13)


def _digest(stats, trace) -> str:
    h = hashlib.sha256(np.ascontiguousarray(stats, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(trace, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


def _run(net, traffic, run):
    """The kernel's run with its trace: ``(stats, trace, pools' rows at the end, growths in step 1, dims)``."""
    tab, sw, tr = cut_through_arguments(net, traffic)
    stats = LAYOUT.zeros(run)
    trace = np.zeros((1 << 20, TRACE_COLUMNS), dtype=np.int64)
    n, rows, step1 = CT.simulate(tab, sw, tr, run, stats, trace, flit.spec(sw))
    return stats, trace[:n], rows, step1, C.dims(tab, sw)


# Digests of flit.trace_run made by the kernel of commit bb61612, whose pools were made at their worst case
# (pool_max rows) before the first cycle: saturated 64-node runs, where the pools grow here.
@pytest.mark.parametrize("org, load, packet, arrivals, expected", [
    ("fifo", 0.95, 16, "poisson", "a1b13106652f07a2"),
    ("safc", 0.95, 16, "poisson", "14a807120c9a6e62"),
    ("damq", 0.9, None, "bernoulli", "20eb21c7f1b4d3e2"),
    ("damq", 0.95, 16, "poisson", "90526e5b29b5bbd8"),
    ("central", 0.95, 16, "poisson", "2a356c88184ffc59"),
])
def test_pools_that_grow_give_the_results_of_pools_made_at_the_worst_case(org, load, packet, arrivals, expected):
    net = FlitNetwork.bmin(64, FlitSwitch(8, org, 640))
    traffic = MessageTraffic(load, 64, packet, arrivals)
    stats, trace, rows, _, dm = _run(net, traffic, RUN)
    assert dm.pool < rows < dm.pool_max // 50           # grown, and still far below the worst case
    assert _digest(stats, trace) == _digest(*flit.trace_run(net, traffic, RUN)) == expected


def test_growth_at_a_cycles_start_and_in_step_1_both_happen_in_the_pinned_runs():
    # where a growth happens is the part most likely to break the random draws' order: both are reached
    at_start = in_step1 = 0
    for org in ("fifo", "safc", "damq", "central"):
        _, _, rows, step1, dm = _run(FlitNetwork.bmin(64, FlitSwitch(8, org, 640)),
                                     MessageTraffic(0.95, 64, 16, "poisson"), RUN)
        growths = int(np.log2(rows // dm.pool))       # each growth here doubles the pools
        assert rows == dm.pool << growths
        at_start += growths - step1
        in_step1 += step1
    assert at_start > 0 and in_step1 > 0


def test_pools_start_at_a_few_rows_per_link_and_below_saturation_stay_there():
    net = FlitNetwork.bmin(1024, FlitSwitch(8, "damq", 640))
    tab, sw, tr = cut_through_arguments(net, MessageTraffic(0.5, 64))
    dm = C.dims(tab, sw)
    # the worst case is an entry per flit every buffer holds and 1024 packets per NIC: 15 M rows, 3.5 GB
    assert dm.pool_max > 15_000_000 and dm.pool == 2 * (dm.n_links + dm.n_in) + 64 < dm.pool_max // 300
    small = FlitNetwork.bmin(64, FlitSwitch(8, "damq", 640))
    _, _, rows, _, dm = _run(small, MessageTraffic(0.4, 64), K.Run(slots=4000, warmup=500, drain=0, seed=3))
    assert rows == dm.pool


def test_grown_pools_take_their_rows_in_the_order_pools_made_that_large_would():
    stk = C.stacks(4)
    ent, _ = entries(4)
    pk = np.zeros((4, 8), dtype=np.int64)
    top = 4
    taken = []
    for _ in range(3):                     # rows 0, 1, 2 taken, 1 given back
        top -= 1
        taken.append(stk[C.E_FREE, top])
    stk[C.E_FREE, top] = 1
    top += 1
    stk[C.M_GEN, 2] = 77
    ent[2, E_NEXT] = 5
    stk2, ent2, pk2, e_top, _, _ = P.grown(stk, ent, pk, top, 4, 4, 8)
    order = [stk2[C.E_FREE, i] for i in range(e_top - 1, -1, -1)]
    assert taken == [0, 1, 2] and order == [1, 3, 4, 5, 6, 7]     # a stack of 8 with that history pops these
    assert stk2[C.M_GEN, 2] == 77 and ent2[2, E_NEXT] == 5 and ent2.shape == (8, ent.shape[1])
    assert (ent2[4:, [E_NEXT, E_GI, E_OI, E_LT, E_CLAIM, E_DOWN]] == -1).all() and pk2.shape == (8, 8)


def test_step_1_stops_before_a_message_it_has_no_rows_for_and_draws_nothing():
    net = FlitNetwork.single(8, FlitSwitch(buffer_org="damq"))
    tab, sw, tr = cut_through_arguments(net, MessageTraffic(0.5, 20, 8))
    dm = C.dims(tab, sw)
    S, T, stk = C.new_state(dm, sw), C.tables(tab, tr, dm), C.stacks(dm.pool)
    ent, _ = entries(dm.pool)
    pk = np.zeros((dm.pool, 8), dtype=np.int64)
    next_at = np.full(8, np.inf)
    next_at[3] = 6.5
    stats = LAYOUT.zeros(RUN)
    low = dm.reserve + 2                   # a 3-packet message needs 3 entries beside the reserve
    out = inject(6, tr, RUN, dm, stats, True, next_at, S, T, stk, ent, pk, 10, 10, low, 0, 0, True)
    assert out[:4] == (10, 10, low, 0) and out[5] == 3 and next_at[3] == 6.5 and S[C.NIC, 3] == 0
    out = inject(6, tr, RUN, dm, stats, True, next_at, S, T, stk, ent, pk, 10, 10, low + 1, 0, 3, True)
    assert out[:4] == (9, 7, low - 2, 20) and out[5] == 8 and next_at[3] > 7 and S[C.NIC, 3] == 3


def test_a_network_whose_arrays_do_not_fit_in_memory_is_refused_naming_what_it_needs(monkeypatch):
    net = FlitNetwork.bmin(1024, FlitSwitch(8, "damq", 640))
    tab, sw, _ = cut_through_arguments(net, MessageTraffic(0.5, 64))
    need = sum(P.first_parts(tab, sw).values())
    assert 0.05e9 < need < 0.15e9          # S, T and the pools' first rows at 1024 nodes
    monkeypatch.setattr(memory, "available_bytes", lambda: 50_000_000)
    with pytest.raises(InputError) as e:
        flit.replicate(net, MessageTraffic(0.5, 64), K.Run(slots=10, warmup=0, drain=0, seed=1))
    assert e.value.parameter == "nodes" and e.value.value == 1024 and "\n" not in str(e.value)
    assert (f"1024 nodes' network before its first cycle needs {memory.readable_bytes(need)}" in str(e.value)
            and "and 50 MB is available" in str(e.value))


def test_a_run_whose_pools_would_outgrow_the_memory_stops_and_is_refused_naming_the_rows(monkeypatch):
    net = FlitNetwork.bmin(64, FlitSwitch(8, "damq", 640))
    traffic = MessageTraffic(0.95, 64, 16, "poisson")
    tab, sw, _ = cut_through_arguments(net, traffic)
    dm = C.dims(tab, sw)
    # room for the tables and 100 rows more than the pools start with: the first doubling does not fit
    first = sum(P.first_parts(tab, sw).values())
    monkeypatch.setattr(memory, "available_bytes", lambda: first + 1.5 * P.ROW_BYTES * (dm.pool + 100))
    with pytest.raises(InputError) as e:
        flit.replicate(net, traffic, RUN)
    assert e.value.parameter == "load" and e.value.value == 0.95
    assert f"needed {2 * dm.pool} rows" in str(e.value) and f"more than the {dm.pool + 100}" in str(e.value)
