"""One hardware reduction on a fat tree (paper 003 §2-§3.2, Figure 16): analytic recursion, closed form, simulator."""

import json
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from switchq.cli import app, main
from switchq.errors import InputError
from switchq.models.collective import Reduction
from switchq.models.network import FatTree, NetworkTiming
from switchq.solvers import reduction as analytic
from switchq.models import StartSkew
from switchq.validate.arch import reduction as sim
from switchq.validate.harness import RunSettings
from switchq.api import simulate

EIGHT, THIRTY_TWO = FatTree.for_nodes(256, 8), FatTree.for_nodes(256, 32)
SIZES = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


def t_ns(tree, message, **kw):
    return analytic.completion_time(Reduction(tree, message, **kw)).completion_time_ns


# ---------------------------------------------------------------- strategies

@st.composite
def reductions(draw, full_machine=None, one_unit=False):
    k = draw(st.sampled_from((2, 4, 8, 16)))
    n = draw(st.integers(1, {2: 7, 4: 4, 8: 2, 16: 2}[k]))
    tree = FatTree(k, n)
    whole = draw(st.booleans()) if full_machine is None else full_machine
    members = None if whole else draw(st.lists(st.integers(0, tree.nodes - 1), min_size=2, max_size=40, unique=True))
    root = draw(st.sampled_from(sorted(members) if members else range(tree.nodes)))
    r = 1 if one_unit else draw(st.sampled_from([1] + list(range(3, 2 * k + 2))))
    timing = NetworkTiming(bandwidth_bps=draw(st.sampled_from((2.5e9, 10e9, 40e9, 100e9))),
                           packet_bytes=draw(st.sampled_from((8, 64, 256, 1000))),
                           channel_delay_ns=draw(st.integers(0, 300)), switch_delay_ns=draw(st.integers(0, 300)),
                           asic_hz=draw(st.sampled_from((125e6, 250e6, 1e9))),
                           nic_send_ns=draw(st.integers(0, 2000)), nic_recv_ns=draw(st.integers(0, 2000)))
    message = draw(st.integers(1, 12 * timing.packet_bytes))
    return Reduction(tree, message, r, members, root, timing, bytes_per_cycle=draw(st.sampled_from((1, 4, 8, 32))),
                     header_cycles=draw(st.integers(0, 8)))


# ---------------------------------------------------------------- simulator == analytic

@given(reductions(), st.one_of(st.none(), st.integers(0, 2**32 - 1)))
def test_simulator_equals_recursion_to_the_picosecond(red, start_seed):
    """Zero skew, and any given start times: the event-driven twin and the max-plus recursion agree exactly."""
    starts = None if start_seed is None else np.random.default_rng(start_seed).uniform(0, 5000, red.tree.nodes)
    assert sim.run_once(red, starts) == analytic.completion_time(red, starts).completion_time_ns


@given(reductions())
def test_breakdown_adds_up_to_the_completion_time(red):
    r = analytic.completion_time(red)
    assert sum(r.breakdown_ns.values()) == pytest.approx(r.completion_time_ns, abs=1e-6)
    assert r.breakdown_ns["nic_send"] == red.timing.nic_send_ns and r.breakdown_ns["nic_recv"] == red.timing.nic_recv_ns


@given(reductions(full_machine=True, one_unit=True))
def test_full_machine_closed_form_equals_the_recursion(red):
    assert analytic.closed_form(red).completion_time_ns == analytic.completion_time(red).completion_time_ns


def test_closed_form_terms_for_the_paper_machines():
    # T = o_s + 2n (ser + d_ch) + (2n - 1) d_sw + (n k + n - 2) S + (P - 1) max(ser, k S) + o_r
    # 256 B: ser = 204.8 ns, S = (4 + 32) cycles / 250 MHz = 144 ns.
    for tree, packets in ((EIGHT, 1), (EIGHT, 16), (THIRTY_TWO, 1), (THIRTY_TWO, 16)):
        k, n = tree.k, tree.n
        expected = (2600 + 2 * n * (204.8 + 20) + (2 * n - 1) * 90 + (n * k + n - 2) * 144
                    + (packets - 1) * max(204.8, k * 144))
        assert t_ns(tree, 256 * packets) == pytest.approx(expected, abs=1e-9)


# ---------------------------------------------------------------- skew: bounds and intervals

@given(reductions(), st.integers(1, 3000), st.integers(0, 2**32 - 1))
def test_skewed_runs_lie_between_zero_skew_and_all_delayed(red, skew, seed):
    r = simulate(red, StartSkew(skew), RunSettings(replications=3, seed=seed))
    lower = analytic.completion_time(red).completion_time_ns
    upper = analytic.completion_time(red, np.full(red.tree.nodes, float(skew))).completion_time_ns
    times = np.array(r.per_replication["completion_time"])
    assert r.lower_bound == lower and r.upper_bound == pytest.approx(upper, abs=1e-9)
    assert np.all(times >= lower) and np.all(times <= upper + 1e-9)


def test_simulation_is_reproducible_and_its_interval_holds_the_mean():
    red = Reduction(THIRTY_TWO, 1024, combine_units=5)
    a = simulate(red, StartSkew(500), RunSettings(replications=6, seed=11))
    b = simulate(red, StartSkew(500), RunSettings(replications=6, seed=11))
    assert np.array_equal(a.per_replication["completion_time"], b.per_replication["completion_time"])
    low, high = a.completion_time.ci95
    assert low <= a.completion_time.value <= high and a.lower_bound < a.completion_time.value
    flat = simulate(red, StartSkew(0), RunSettings(replications=2, seed=1))
    assert flat.completion_time.value == flat.lower_bound == flat.completion_time.low


# ---------------------------------------------------------------- paper 003 §3.2, Figure 16 (256 nodes)

def test_one_unit_32_ports_win_small_messages_8_ports_win_large_ones():
    """Figure 16: 8-port switches beat 32-port ones above 64 B. Here, with the assumed 8 B/cycle and
    4 header cycles, 32 ports win up to 56 B and 8 ports from 57 B on: 64 B already goes to 8 ports
    (4663.6 vs 4690.8 ns), one doubling earlier than the paper's boundary."""
    for m in (8, 16, 32, 56):
        assert t_ns(THIRTY_TWO, m) < t_ns(EIGHT, m), m
    for m in (57, 64) + SIZES[4:]:
        assert t_ns(EIGHT, m) < t_ns(THIRTY_TWO, m), m
    assert (t_ns(EIGHT, 64), t_ns(THIRTY_TWO, 64)) == (4663.6, 4690.8)


def last_size_32_ports_win(**kw):
    return max(m for m in range(1, 300) if t_ns(THIRTY_TWO, m, **kw) <= t_ns(EIGHT, m, **kw))


def test_crossover_sensitivity_to_the_assumed_combine_timing():
    """Not a fit: how the crossover moves with the two assumed combine-unit figures. Only a 64-bit
    datapath puts it near the paper's 64 B (4 B/cycle: 20 B; 16 B/cycle: 272 B); 3 header cycles
    instead of 4 would put it exactly at 64 B."""
    assert last_size_32_ports_win() == 56
    assert last_size_32_ports_win(header_cycles=3) == 64
    assert last_size_32_ports_win(bytes_per_cycle=4) == 20
    assert last_size_32_ports_win(bytes_per_cycle=16) == 272


def test_five_combine_units_rescue_32_port_switches_on_large_messages():
    """Figure 16: with 5 combine units 32-port switches do well even on large reductions."""
    for m in SIZES[5:]:
        assert t_ns(THIRTY_TWO, m, combine_units=5) < t_ns(THIRTY_TWO, m), m
    one, five = t_ns(THIRTY_TWO, 4096), t_ns(THIRTY_TWO, 4096, combine_units=5)
    assert (one, five) == (42937.2, 24073.2)          # period 16 S -> 8 S per packet
    assert t_ns(EIGHT, 4096) < five                    # 8-port (period 4 S) still faster here


def test_32_ports_with_5_units_use_3_units_off_the_root_path():
    """§3.2: a reduction uses at most K/2 + 1 ports, so 5 units act as 3 (two leaves and the root)."""
    p = analytic.plan(Reduction(THIRTY_TWO, 256, combine_units=5))
    assert dict(p.units_working()) == {3: 16, 4: 1}     # R's leaf switch also gets a partial on an up port


def test_packet_times_grow_with_packet_size():
    red = Reduction(EIGHT, 300)
    assert red.packet_sizes() == [256, 44] and red.combine_ns(256) == 144.0 and red.combine_ns(44) == 40.0


# ---------------------------------------------------------------- model validation

@pytest.mark.parametrize("kwargs, parameter", [
    ({"message_bytes": 0}, "message_bytes"),
    ({"message_bytes": 10**9}, "message_bytes"),
    ({"message_bytes": 64, "combine_units": 2}, "combine_units"),
    ({"message_bytes": 64, "combine_units": 10}, "combine_units"),
    ({"message_bytes": 64, "members": [3]}, "members"),
    ({"message_bytes": 64, "members": [3, 99]}, "members"),
    ({"message_bytes": 64, "members": [3, 4], "root": 5}, "root"),
    ({"message_bytes": 64, "bytes_per_cycle": 0}, "bytes_per_cycle"),
    ({"message_bytes": 64, "header_cycles": -1}, "header_cycles"),
])
def test_bad_reductions_are_refused_with_one_line(kwargs, parameter):
    with pytest.raises(InputError) as e:
        Reduction(FatTree(4, 2), **kwargs)
    assert e.value.parameter == parameter and "\n" not in str(e.value)


def test_members_subset_and_default_root():
    red = Reduction(FatTree(4, 2), 64, members=[9, 3, 3, 12])
    assert red.members == (3, 9, 12) and red.root == 3 and not red.full_machine
    assert Reduction(FatTree(4, 2), 64, members=range(16)).full_machine


# ---------------------------------------------------------------- CLI

def invoke(*args):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_cli_solve_json_fields_and_units():
    out = invoke("solve", "reduction", "--ports", "8", "--nodes", "256", "--message", "256B",
                 "--combine-units", "1", "--json")
    assert out["completion_time"] == 7620.4 == out["closed_form"] and out["units"]["completion_time"] == "ns"
    assert sum(out["breakdown"].values()) == pytest.approx(out["completion_time"])
    assert out["units"]["breakdown"] == "ns" and out["message_bytes"] == 256 and out["units"]["message_bytes"] == "B"
    rows = invoke("solve", "reduction", "--ports", "32", "--message", "8B,64B,4KiB", "--json")
    assert [r["message_bytes"] for r in rows] == [8, 64, 4096]
    assert [r["completion_time"] for r in rows] == [3615.6, 4690.8, 42937.2]


def test_cli_simulate_json_fields():
    out = invoke("simulate", "reduction", "--ports", "32", "--message", "1KiB", "--combine-units", "5",
                 "--skew", "500ns", "--replications", "4", "--seed", "1", "--json")
    low, high = out["completion_time_ci95"]
    assert out["seed"] == 1 and out["skew"] == 500.0 and out["units"]["completion_time_ci95"] == "ns"
    assert low <= out["completion_time"] <= high
    assert out["lower_bound"] <= out["completion_time"] <= out["upper_bound"]   # the interval itself may overhang


@pytest.mark.parametrize("args, needle", [
    (("solve", "reduction", "--message", "12b"), "--message"),
    (("solve", "reduction", "--message", "8B", "--combine-units", "2"), "--combine-units"),
    (("solve", "reduction", "--message", "8B", "--ports", "32", "--nodes", "64"), "--nodes"),
    (("simulate", "reduction", "--message", "8B", "--skew", "5"), "--skew"),
    # Sizes that would exhaust memory are refused before any work, on one line.
    (("solve", "reduction", "--message", "8B", "--members", "0-99999999999"), "--members"),
    (("solve", "reduction", "--ports", "8", "--nodes", "16384", "--message", "16MiB"), "--message"),
])
def test_cli_bad_input_is_one_line_exit_2(capsys, args, needle):
    with pytest.raises(SystemExit) as e:
        main(list(args))
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and needle in err[0]


def test_cli_solve_reduction_does_not_import_numba():
    code = ("import sys\nfrom switchq.cli import main\n"
            "try:\n    main(['solve', 'reduction', '--message', '64B', '--json'])\nexcept SystemExit:\n    pass\n"
            "print('numba' not in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.stdout.strip().endswith("True"), p.stdout + p.stderr


@pytest.mark.parametrize("k, n", [(2, 3), (4, 2), (4, 3), (16, 2)])
def test_each_switch_combines_one_packet_fewer_than_its_tree_ports(k, n):
    # Paper 003 §2.1, independent of the plan's own wiring: a switch whose routing bit vector (the
    # spanning tree's ports there, solvers.fattree.routing_table) has k ports set combines k - 1
    # packets per index and sends the result out of the remaining port.
    from switchq.solvers import fattree

    tree = FatTree(k, n)
    p = analytic.plan(Reduction(tree, 256))
    table = fattree.routing_table(fattree.build_tree(tree, range(tree.nodes), {}))
    assert set(p.switches) == set(table)
    for u in range(p.units):
        assert p.unit_inputs[u] == len(table[p.switches[p.unit_switch[u]]]) - 1


# ---------------------------------------------------------------- two wirings, written apart

@given(reductions())
def test_the_twins_wiring_is_the_recursions_array_for_array(red):
    # The kernel builds its spanning tree, units, channels and links with its own code (issue 35: a twin
    # never runs the solver it checks); the two numberings must still be the same wiring, array for array,
    # or the picosecond agreement above would rest on one of them alone.
    from switchq.validate.arch import reduction_plan as twin

    mine, theirs = twin.wiring(red), analytic.plan(red)
    for name in twin.Wiring._fields:
        assert np.array_equal(getattr(mine, name), getattr(theirs, name)), name
    ser, svc = twin.packet_times_ps(red)
    assert [ser.tolist(), svc.tolist()] == [a.tolist() for a in analytic.packet_times_ps(red)]
