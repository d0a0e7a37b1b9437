"""Circuit-switched HIPPI LANs (paper 001): the event-driven simulator's invariants and the analytic answers."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from switchq.cli import app, main
from switchq.errors import InputError
from switchq.models.circuit import CircuitSwitch, CircuitTraffic
from switchq.solvers import circuit as analytic
from switchq.solvers import hol
from switchq.validate.arch import circuit as sim


def throughput(switch, traffic, seed=1):
    stats, _ = sim.run_once(switch, traffic, seed)
    return sim.LAYOUT.named(stats)["m_busy_ns"] / (switch.n_ports * traffic.seconds * 1e9)


# ---------------------------------------------------------------- strategies

@st.composite
def switches(draw, n_ports=None):
    # Each option only where it takes effect (the model refuses it elsewhere): the round-robin pointer with a
    # window or channels, the claim and the set-up time with distributed control.
    n = n_ports or draw(st.integers(2, 8))
    scheduling = draw(st.sampled_from(("fifo", "window", "channels")))
    control = draw(st.sampled_from(("distributed", "central")))
    slots = draw(st.integers(1, 6))
    overhead = draw(st.booleans())
    own = {}
    if scheduling != "fifo":
        own["pointer"] = draw(st.sampled_from(("next", "head")))
    if control == "distributed":
        own["claim"] = draw(st.sampled_from(("request", "connect")))
        own["setup_time"] = draw(st.sampled_from((0.0, 5e-6, 20e-6))) if overhead else 0.0
    return CircuitSwitch(n, scheduling, window=slots if scheduling == "window" else 1,
                         channels=slots if scheduling == "channels" else 1, control=control,
                         select_time=draw(st.sampled_from((1e-6, 2e-6, 3.5e-6))) if overhead else 0.0,
                         link_rate=draw(st.sampled_from((800e6, 1600e6, 1e9))),
                         pool=draw(st.one_of(st.none(), st.integers(1, 8))) if scheduling == "channels" else None,
                         resolution=draw(st.sampled_from(("1us", "ns"))), **own)


@st.composite
def traffics(draw, n_ports):
    # Each size law with its own sizes; destinations drawn only without file servers (they pick their own).
    sizes = draw(st.sampled_from(("fixed", "uniform", "bimodal", "train")))
    servers = draw(st.integers(0, n_ports - 1)) if sizes in ("bimodal", "train") and n_ports > 2 else 0
    own = {}
    if sizes == "fixed":
        own["size"] = draw(st.integers(1, 4000))
    elif sizes == "uniform":
        own.update(size_min=0, size_max=draw(st.integers(1, 8000)))
    else:
        own.update(short=100, long=draw(st.sampled_from((4000, 16000, 32000))), long_bytes=draw(st.floats(0, 1)))
        if sizes == "train":
            own["train"] = draw(st.sampled_from((1, 2, 8)))
    if not servers:
        own["destinations"] = draw(st.sampled_from(("others", "all")))
    return CircuitTraffic(sizes, file_servers=servers, seconds=0.003,
                          warmup_seconds=draw(st.sampled_from((0.0, 0.001))), **own)


@st.composite
def cases(draw):
    sw = draw(switches())
    tr = draw(traffics(sw.n_ports))
    if tr.file_servers and sw.scheduling == "channels" and sw.pool is None:
        tr = CircuitTraffic(tr.sizes, long=tr.long, long_bytes=tr.long_bytes, train=tr.train, seconds=tr.seconds)
    return sw, tr, draw(st.integers(0, 2**31 - 1))


# ---------------------------------------------------------------- invariants

@given(cases())
def test_no_port_is_ever_in_two_circuits_and_bytes_are_conserved(case):
    sw, tr, seed = case
    stats, trace = sim.run_once(sw, tr, seed, trace=4000)
    c = sim.LAYOUT.named(stats)
    count = int(trace.count[0])
    assert count > 0
    for ports in (trace.inp[:count], trace.out[:count]):
        for port in range(sw.n_ports):
            mine = ports == port
            held, until = trace.held_from[:count][mine], trace.until[:count][mine]
            order = np.argsort(held, kind="stable")
            # Each circuit is released before the port's next one is set up (a 0-byte packet may end as
            # the next begins, so <=).
            assert np.all(until[order][:-1] <= held[order][1:])
    assert np.all(trace.inp[:count] != trace.out[:count]) or tr.destinations == "all"
    assert c["arrived"] == c["delivered"] + c["queued"]
    assert c["bytes_arrived"] == c["bytes_delivered"] + c["bytes_queued"]
    # Busy time measured never exceeds the links' capacity in the window.
    assert 0 <= c["m_busy_ns"] <= sw.n_ports * tr.seconds * 1e9


@given(switches(n_ports=2), st.sampled_from((100, 2000, 8000, 64000)))
def test_two_nodes_equal_renewal_reward(sw, size):
    # N = 2 with the other node as the only destination: no conflicts, so every packet costs exactly its
    # overhead and its transfer. Fixed sizes make the run periodic: the measured window differs from the
    # renewal-reward ratio only by the cut cycle at its ends (one cycle over the window) and the rounding
    # of a transfer to whole ns (0.5 ns per packet; under the 1 us clock the answer rounds it as the kernel does).
    tr = CircuitTraffic(size=size, seconds=0.01, warmup_seconds=0.0)
    t_ns = size * 8e9 / sw.link_rate
    cycle = t_ns + analytic._overhead(sw)[0] * 1e9
    stats, _ = sim.run_once(sw, tr, 1)
    c = sim.LAYOUT.named(stats)
    got = c["m_busy_ns"] / (2 * tr.seconds * 1e9)
    # Never rejected: one attempt per packet (up to the attempt under way when the window closes).
    assert c["m_delivered"] <= c["m_attempts"] <= c["m_delivered"] + 2
    if sw.scheduling == "channels" and sw.channels > 1 or sw.ideal:
        expected = 1.0 if sw.ideal else analytic.no_conflict(sw, tr)
    else:
        expected = analytic.no_conflict(sw, tr)
    assert got == pytest.approx(expected, abs=2 * cycle / 1e7 + 0.5 / t_ns)


def test_two_nodes_with_bimodal_sizes_equal_renewal_reward():
    # Random sizes: the figure is a mean over packets; 8 seeds of 0.5 s (about 20,000 packets each), a
    # 99.9 % band from their spread.
    sw = CircuitSwitch(2)
    tr = CircuitTraffic("bimodal", long=32000, long_bytes=0.8, seconds=0.5)
    runs = np.array([throughput(sw, tr, s) for s in range(8)])
    half = 5.4 * runs.std(ddof=1) / math.sqrt(len(runs))   # t_{0.9995, 7} = 5.4
    assert abs(runs.mean() - analytic.no_conflict(sw, tr)) < half


# ---------------------------------------------------------------- the ideal switch is the slotted one

def test_ideal_fixed_sizes_equal_the_slotted_window_simulator():
    # With fixed sizes every circuit ends together, so the ideal circuit switch whose same-instant ends are matched
    # as one batch (--resolution ns) is the slotted switch under paper 001's central rule (fifo --window-policy
    # random). Same question, two simulators: their intervals must overlap (about 10,000 slots x 4 replications
    # each).
    from switchq.models.fifo import FifoSwitch
    from switchq.models.traffic import Traffic
    from switchq.validate.harness import RunSettings
    from switchq.api import simulate

    for n, w in ((8, 1), (8, 4)):
        slotted = simulate(FifoSwitch(n, w, "random"), Traffic(load=1.0),
                           RunSettings(slots=10_000, replications=4, seed=3)).output_utilization
        sw = CircuitSwitch(n, "window" if w > 1 else "fifo", window=w, select_time=0, setup_time=0,
                           resolution="ns")
        circuit = [throughput(sw, CircuitTraffic(size=2000, destinations="all", seconds=0.2), s) for s in range(4)]
        half = 3.18 * np.std(circuit, ddof=1) / 2          # t_{0.975, 3}
        gap = abs(np.mean(circuit) - slotted.value)
        assert gap < 1.5 * math.hypot(half, slotted.half_width), (n, w, np.mean(circuit), slotted)


def test_ideal_fifo_matches_karols_exact_chain():
    sw = CircuitSwitch(4, select_time=0, setup_time=0)
    tr = CircuitTraffic(size=2000, destinations="all", seconds=1.0)
    # 50,000 slots: the standard error of one run is about 0.001 (validate's case runs it with an interval).
    assert throughput(sw, tr) == pytest.approx(hol.saturation_throughput(4).saturation_throughput, abs=0.004)


def test_other_nodes_only_chain_is_the_simulated_one_and_higher_than_karols():
    # Destinations over the other nodes remove an output's own input from its contenders: N = 3 goes from
    # Karol's 43/63 = 0.6825 to 3/4 (exact chain); the simulator gives it to 0.002 (60,000 slots).
    assert analytic.others_chain(3) == pytest.approx(0.75, abs=1e-12)
    assert hol.saturation_throughput(3).saturation_throughput == pytest.approx(43 / 63)
    sim_value = throughput(CircuitSwitch(3, select_time=0, setup_time=0), CircuitTraffic(size=2000, seconds=1.2))
    assert sim_value == pytest.approx(0.75, abs=0.002)
    assert analytic.others_chain(4) > hol.saturation_throughput(4).saturation_throughput


# ---------------------------------------------------------------- the paper's numbers (reduced runs)

def test_fifo_flattens_near_58_percent_fig1():
    # Paper 001 §4: "the throughput flattens out at about 58%"; Karol's N = 32 value is 0.5900 and the
    # other-nodes switch reads a little higher. 0.1 s = 5,000 slots x 32 ports: SE about 0.002.
    got = throughput(CircuitSwitch(32, select_time=0, setup_time=0), CircuitTraffic(size=2000, seconds=0.1))
    assert 0.58 <= got <= 0.60


@pytest.mark.parametrize("window, floor", [(16, 0.90), (64, 0.98)])
def test_windows_16_and_64_pass_90_and_98_percent_fig1(window, floor):
    # §4: "With a window size of 16, the throughput is over 90% for all switch sizes, while the throughput
    # is over 98% with a window size of 64". The largest size of Fig. 1 is the worst case (throughput falls
    # with N); 2,500 slots, SE below 0.002.
    got = throughput(CircuitSwitch(64, "window", window=window, select_time=0, setup_time=0),
                     CircuitTraffic(size=2000, seconds=0.05))
    assert got > floor


def test_variable_size_fifo_limit_against_simulation():
    # The N -> infinity M/G/1 argument: exponential-like spread (uniform [0, 32000], C^2 = 1/3) at N = 64 reads
    # a little above the limit (finite N), within FIFO_LIMIT_ERROR.
    tr = CircuitTraffic("uniform", size_min=0, size_max=32000, seconds=0.4)
    m1, m2 = analytic.size_moments(tr)
    assert m2 / m1 ** 2 - 1 == pytest.approx(1 / 3, rel=1e-3)
    limit = analytic.fifo_limit(1 / 3)
    got = throughput(CircuitSwitch(64, select_time=0, setup_time=0), tr)
    assert 0 < got - limit < analytic.FIFO_LIMIT_ERROR


def test_logical_channels_one_per_destination_carry_everything():
    # §5: "logical channels (with the number of logical channels equal to the number of ports) have a
    # saturation throughput of 100%" with variable sizes on the ideal switch.
    # Over all N outputs that is exact, and so it is over the other nodes under the 1 us clock (each end matched
    # on its own: the input freed takes the output freed with it). Under --resolution ns, circuits ending together
    # (every 100-byte packet lasts 1 us) can leave an input whose only free output is its own: CHANNELS_ERROR.
    sw = CircuitSwitch(8, "channels", channels=8, select_time=0, setup_time=0)
    assert throughput(sw, CircuitTraffic("bimodal", destinations="all", seconds=0.2)) > 0.9999
    assert throughput(sw, CircuitTraffic("bimodal", seconds=0.2)) > 0.9999
    got = throughput(CircuitSwitch(8, "channels", channels=8, select_time=0, setup_time=0, resolution="ns"),
                     CircuitTraffic("bimodal", seconds=0.2))
    assert 1 - analytic.CHANNELS_ERROR < got < 1


def test_pooled_channels_behave_like_a_window_of_the_same_size():
    # §6.4 (Fig. 17): logical channels (L = 32) and a window (W = 32) give "almost identical" throughput when
    # the adapter holds the same packets either way (a pool of 32, only channel heads may go). Same seed,
    # 0.2 s each: the gap is within 0.02 (the runs' spread is about 0.005).
    tr = CircuitTraffic("bimodal", long=32000, long_bytes=0.9, seconds=0.2)
    window = throughput(CircuitSwitch(32, "window", window=32), tr)
    pooled = throughput(CircuitSwitch(32, "channels", channels=32, pool=32), tr)
    assert abs(window - pooled) < 0.02


def test_central_control_costs_one_charge_per_packet():
    # Central control with 2 us per packet and no conflicts (N = 2): 20 / 22 exactly.
    sw = CircuitSwitch(2, control="central")
    assert analytic.no_conflict(sw, CircuitTraffic(size=2000)) == pytest.approx(20 / 22)
    assert throughput(sw, CircuitTraffic(size=2000, seconds=0.01, warmup_seconds=0)) == pytest.approx(20 / 22,
                                                                                                    abs=3e-3)


# ---------------------------------------------------------------- the clock (issue 25, item 10)

def _one_byte_gap(switch, seconds, seed):
    """Throughput with sizes uniform on 1999-2001 B minus with fixed 2000 B, same seed."""
    spread = CircuitTraffic("uniform", size_min=1999, size_max=2001, seconds=seconds)
    return throughput(switch, spread, seed) - throughput(switch, CircuitTraffic(size=2000, seconds=seconds), seed)


def test_a_one_byte_size_spread_does_not_move_the_ideal_window_16_under_the_default_clock():
    # Issue 25, item 10: with nanosecond ties matched as one batch, 2000 B against 1999-2001 B moved ideal W = 16
    # (N = 32) from 0.9467 to 0.9342 (0.0125). Under the paper's 1 us clock both sizes last 20 ticks, so only
    # noise separates them: 0.1 s is 5,000 packet times x 32 ports, SE of one run about 0.001, of the difference
    # about 0.0015; the bound 0.005 is 3 of those and well inside the 0.01, and the old gap fails it.
    sw = CircuitSwitch(32, "window", window=16, select_time=0, setup_time=0)
    assert sw.resolution == "1us"
    assert abs(_one_byte_gap(sw, 0.1, 1)) < 0.005


def test_the_ns_clock_matches_same_instant_ends_as_one_batch():
    # The reading --resolution ns keeps the slotted switch for fixed sizes, so the one-byte spread moves it: the
    # issue's 0.9469 -> 0.9352 (0.012, measured here 0.0125 with seed 1). Its noise is that of the test above:
    # the gap is at least 0.008.
    sw = CircuitSwitch(32, "window", window=16, select_time=0, setup_time=0, resolution="ns")
    assert _one_byte_gap(sw, 0.1, 1) < -0.008


def test_the_1us_clock_rounds_transfers_to_whole_ticks():
    # N = 2, central control (never rejected): 1999 B at 800 Mbit/s is 19.99 us, held 20 us under the 1 us clock
    # (the trace's held-from to until: charge 2 us + 20 us), 19.99 + 2 under ns.
    for res, held in (("1us", 22_000), ("ns", 21_990)):
        _, tr = sim.run_once(CircuitSwitch(2, control="central", resolution=res),
                             CircuitTraffic(size=1999, seconds=0.001), 1, trace=4)
        assert list(tr.until[:4] - tr.held_from[:4]) == [held] * 4


@pytest.mark.slow
@pytest.mark.parametrize("switch", [
    CircuitSwitch(32, "window", window=64, select_time=0, setup_time=0),
    CircuitSwitch(32, "window", window=32, control="central")], ids=["ideal W=64", "central W=32"])
def test_a_one_byte_size_spread_moves_no_figure_by_a_hundredth(switch):
    # The other two cases (ns: W = 64 0.9879 -> 0.9779, central 0.8840 -> 0.8738): 4 seeds of 0.2 s, the
    # mean gap within 0.005 (SE of a gap about 0.001 at 0.2 s; 0.005 is half the bound).
    assert abs(np.mean([_one_byte_gap(switch, 0.2, s) for s in range(4)])) < 0.005


# ---------------------------------------------------------------- logical channels (issue 25, item 11)

def test_each_adapter_scans_its_channels_in_an_order_of_its_own():
    # Channel c of input i holds the destinations of rank c mod L in i's own random order of the other nodes:
    # every destination in exactly one channel, and the inputs' orders not all the same.
    sw, tr = CircuitSwitch(8, "channels", channels=7), CircuitTraffic("bimodal")
    mix = sim._mix(sw, tr, 1)
    for i in range(8):
        dests = sorted(int(d) for c in range(7) for d in mix.group_dest[i, c, :mix.group_ndest[i, c]])
        assert dests == [d for d in range(8) if d != i]
    # The old shared order: destination d in channel (its rank among the others) mod L, for every input. A random
    # order is that one with chance 1/7! per input.
    shared = [all(mix.channel[i, d] == d - (d > i) for d in range(8) if d != i) for i in range(8)]
    assert sum(shared) <= 1
    assert (sim._mix(sw, tr, 1).channel == mix.channel).all()     # same seed, same orders


def test_backlogged_logical_channels_need_about_two_attempts_a_packet():
    # Issue 25, item 11: with one scan order for all, the adapters fell into step: 7.9 attempts a packet and
    # 0.033 at BinL 0.5 (N = 32, L = 32, 0.1 s, seed 1). Each adapter with its own order: 1.85 and 0.137, beside
    # W = 32's 0.134. 0.1 s carries about 13,000 packets: bounds of 0.3 attempts and 0.03 (Fig. 17's "almost
    # identical") are many standard errors wide, and the old 7.9 fails them.
    tr = CircuitTraffic("bimodal", long=32000, long_bytes=0.5, seconds=0.1)
    sw = CircuitSwitch(32, "channels", channels=32)
    stats, _ = sim.run_once(sw, tr, 1)
    c = sim.LAYOUT.named(stats)
    assert abs(c["m_attempts"] / c["m_delivered"] - 1.8) < 0.3
    assert abs(throughput(sw, tr) - throughput(CircuitSwitch(32, "window", window=32), tr)) < 0.03


# ---------------------------------------------------------------- analytic pieces

def test_bimodal_moments_by_direct_sum():
    tr = CircuitTraffic("bimodal", short=100, long=16000, long_bytes=0.9)
    p = (0.9 / 16000) / (0.9 / 16000 + 0.1 / 100)
    m1, m2 = analytic.size_moments(tr)
    assert m1 == pytest.approx(p * 16000 + (1 - p) * 100)
    assert m2 == pytest.approx(p * 16000 ** 2 + (1 - p) * 100 ** 2)
    # Bytes in long packets come back out of the moments.
    assert p * 16000 / m1 == pytest.approx(0.9)


def test_trains_split_long_packets_into_equal_pieces():
    tr = CircuitTraffic("train", short=100, long=32000, long_bytes=1.0, train=8)
    assert analytic.size_moments(tr) == pytest.approx((4000, 4000 ** 2))


def test_the_fifo_limit_is_karols_for_fixed_sizes():
    assert analytic.fifo_limit(0.0) == pytest.approx(2 - math.sqrt(2), abs=1e-15)


def test_solve_says_no_analytic_model_where_none_applies():
    r = analytic.saturation_throughput(CircuitSwitch(32, "window", window=32), CircuitTraffic("bimodal"))
    assert r.saturation_throughput is None and r.method.startswith("no analytic model")


# ---------------------------------------------------------------- the command line

@pytest.mark.parametrize("args, option", [
    (["--ports", "1"], "--ports"),
    (["--ports", "4", "--long-bytes", "1.5", "--sizes", "bimodal"], "--long-bytes"),
    (["--ports", "4", "--setup-time", "5"], "--setup-time"),
    (["--ports", "4", "--scheduling", "fifo", "--window", "4"], "--window"),
    (["--ports", "4", "--sizes", "train", "--long", "32000B", "--train", "7"], "--train"),
    (["--ports", "4", "--file-servers", "4"], "--file-servers"),
])
def test_bad_input_is_one_line_naming_the_option(args, option, capsys):
    with pytest.raises(SystemExit) as e:
        main(["solve", "circuit"] + args)
    assert e.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and f"{option}: got" in lines[0]


def test_solve_circuit_does_not_import_numba():
    code = ("import sys\nfrom switchq.cli import main\ntry:\n    main(['solve', 'circuit', '--ports', '32', "
            "'--sizes', 'bimodal', '--json'])\nexcept SystemExit:\n    pass\nprint('numba' not in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.stdout.strip().endswith("True"), p.stdout + p.stderr


def test_solve_circuit_json_interface():
    out = CliRunner().invoke(app, ["solve", "circuit", "--ports", "2", "--sizes", "fixed", "--size", "2000B",
                                   "--json"]).output
    payload = json.loads(out)
    assert payload["saturation_throughput"] == pytest.approx(20 / 27) and "renewal" in payload["method"]
    assert payload["units"]["saturation_throughput"] == "1"


def test_model_refuses_a_window_for_fifo():
    with pytest.raises(InputError):
        CircuitSwitch(4, "fifo", window=2)


# ---------------------------------------------------------------- the paper's numbers at full length (slow)

@pytest.mark.slow
@pytest.mark.parametrize("binl, printed", [(1.0, 0.97), (0.75, 0.59), (0.5, 0.56)])
def test_window_32_on_bimodal_traffic_gives_97_59_56_percent_fig7(binl, printed):
    # §5.2: "with a window of size of 32, the throughput drops from 97% with fixed sized packets to 59% with
    # 75% of the bytes in long packets, to 56% with 50%". Two printed digits: ours must round to them
    # (half a unit, 0.005), plus the spread of 4 runs of 1 s (about 0.003).
    tr = CircuitTraffic("bimodal", long=32000, long_bytes=binl, seconds=1.0)
    runs = [throughput(CircuitSwitch(32, "window", window=32, select_time=0, setup_time=0), tr, s) for s in range(4)]
    assert abs(np.mean(runs) - printed) < 0.005 + 3.18 * np.std(runs, ddof=1) / 2


@pytest.mark.slow
def test_fifo_overhead_change_from_2000_to_64000_bytes_fig10():
    # §6.1: from 2000 to 64000 bytes FIFO changes by "less than 15%", W = 32 by "more than 35%" (throughput
    # points, read off the figure to 0.01), at the defaults (800 Mbit/s, output held from the request).
    change = {}
    for w in (1, 32):
        sw = CircuitSwitch(32, "window" if w > 1 else "fifo", window=w)
        small, large = (throughput(sw, CircuitTraffic(size=s, seconds=2.0)) for s in (2000, 64000))
        change[w] = large - small
    assert change[1] < 0.15 + 0.01 and change[32] > 0.35 - 0.01
