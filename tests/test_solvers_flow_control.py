"""Link-level flow control closed forms (Minkenberg & Gusat, SFC paper): the paper's numbers, an
independent slot simulation of credit flow control, SymPy forms, monotonicity and input checks."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from switchq.errors import InputError
from switchq.solvers import crossbar_memory as xm
from switchq.solvers import flow_control as fc


# ------------------------------------------------------------ round trip (section 2.2)

def test_round_trip_of_paper_003_link():
    # 10 Gb/s x 200 ns = 2000 bits = 250 B in flight (Kumar et al., section 2).
    assert fc.round_trip_slots(10e9, 200e-9, 8).rtt_slots == 250
    r = fc.round_trip_slots(10e9, 200e-9, 512)
    assert r.rtt_slots == 4 and r.rtt_bits == pytest.approx(2000) and r.slot_s == pytest.approx(51.2e-9)
    assert "ceil" in r.formula and "2.2" in r.source
    assert fc.slot_seconds(10e9, 2048) == pytest.approx(204.8e-9)


def test_exact_multiples_are_not_pushed_up_by_binary_rounding():
    # 10e9 * 204.8e-9 is 2048.0000000000002 in binary floating point: still exactly one cell.
    assert fc.round_trip_slots(10e9, 204.8e-9, 2048).rtt_slots == 1
    assert fc.round_trip_slots(10e9, 204.9e-9, 2048).rtt_slots == 2
    assert fc.round_trip_slots(1e9, 1e-15, 2048).rtt_slots == 1   # any positive RTT is at least a slot


# ------------------------------------------------------------ one link (sections 2.3-2.5)

def test_credit_utilization_is_min_qr_over_tau():
    assert [fc.max_utilization(q, 8).utilization for q in (1, 2, 4, 8, 16)] == [0.125, 0.25, 0.5, 1.0, 1.0]
    assert "min" in fc.max_utilization(1, 8).formula


def test_buffer_for_lossless_full_rate():
    # Section 2.3: credit tau, grant 2 tau; section 2.4: ACK/NAK Q_R = 1 plus Q_RTX = tau.
    tau = 13
    credit, grant, acknak = (fc.buffer_requirement(p, tau) for p in fc.PROTOCOLS)
    assert (credit.total_cells, grant.total_cells, acknak.total_cells) == (tau, 2 * tau, 1 + tau)
    assert acknak.receiver_cells_per_buffer == 1 and acknak.retransmission_cells_per_link == tau
    # Section 2.5: M buffers scale as M tau with credits, tau + M with ACK/NAK.
    m = 16
    assert fc.buffer_requirement("credit", tau, m).total_cells == m * tau
    assert fc.buffer_requirement("grant", tau, m).total_cells == 2 * m * tau
    assert fc.buffer_requirement("acknak", tau, m).total_cells == tau + m
    assert fc.buffer_requirement("acknak", tau, m, links=4).total_cells == 4 * (tau + m)


def test_restart_times():
    # Credit delta_c, grant tau + delta_c (worst case), ACK/NAK 0 (sections 2.3, 2.4).
    assert [fc.restart_time(p, 10, 4).restart_slots for p in fc.PROTOCOLS] == [4, 14, 0]


# ------------------------------------------------------------ burst latency (section 2.3, Fig. 1)

def test_fig1_burst_takes_three_round_trips():
    b = fc.burst_latency(burst_cells=6, q_r=2, rtt_slots=4, data_delay_slots=2)
    assert b.round_trips == 3                      # the paper's ceil(B / Q_R)
    assert b.latency_slots == 12 and b.latency_rtts == 3.0
    assert b.last_send_slot == 9                   # cells sent in slots 0, 1, 4, 5, 8, 9


@pytest.mark.parametrize("burst, expected", [(10, [5, 4, 3, 2]), (20, [10, 7, 5, 4])])
def test_section5_rtt_multiples(burst, expected):
    # Section 5, N = 16, tau = 8, 16, 32, 64 with Q_R = floor(tau/N) + 2 = 2, 3, 4, 6: the paper
    # quotes RTT multiples 5, 4, 3, 2 (B = 10) and 10, 7, 5, 4 (B = 20). It typesets floor(B/Q_R),
    # but these values are ceil(B/Q_R), which is what round_trips gives.
    q_rs = [xm.sfc_cicq(16, tau, rule="paper").q_r for tau in (8, 16, 32, 64)]
    assert q_rs == [2, 3, 4, 6]
    assert [fc.burst_latency(burst, q, 64, 32).round_trips for q in q_rs] == expected


def _simulate_credit_burst(burst, q_r, tau, delta_d, arrivals):
    """Slot-by-slot credit flow control, written independently of the closed form."""
    credits, returns, sent, t = q_r, {}, [], 0
    while len(sent) < burst:
        credits += returns.pop(t, 0)               # credits whose round trip ends now
        ready = len(sent) < burst and (arrivals == "together" or len(sent) <= t)
        if ready and credits > 0:
            credits -= 1
            # arrives downstream at t + delta_d, leaves in that slot, credit back delta_c later
            returns[t + tau] = returns.get(t + tau, 0) + 1
            sent.append(t)
        t += 1
    own_arrival = [0] * burst if arrivals == "together" else list(range(burst))
    cell_latency = [s + delta_d + 1 - a for s, a in zip(sent, own_arrival)]
    return sent[-1] + delta_d + 1, sum(cell_latency) / burst


@given(burst=st.integers(1, 60), q_r=st.integers(1, 12), tau=st.integers(1, 30), data=st.data(),
       arrivals=st.sampled_from(fc.ARRIVALS))
def test_burst_latency_matches_slot_simulation(burst, q_r, tau, data, arrivals):
    delta_d = data.draw(st.integers(0, tau))
    latency, mean_cell = _simulate_credit_burst(burst, q_r, tau, delta_d, arrivals)
    b = fc.burst_latency(burst, q_r, tau, delta_d, arrivals)
    assert b.latency_slots == latency
    assert b.mean_cell_latency_slots == pytest.approx(mean_cell, rel=1e-12)


@given(burst=st.integers(1, 200), q_r=st.integers(1, 20), tau=st.integers(1, 50))
def test_one_per_slot_arrivals_never_change_the_burst_latency(burst, q_r, tau):
    # A one-cell-per-slot stream cannot outrun a one-cell-per-slot link.
    together = fc.burst_latency(burst, q_r, tau, 0, "together")
    paced = fc.burst_latency(burst, q_r, tau, 0, "one_per_slot")
    assert together.latency_slots == paced.latency_slots
    assert paced.mean_cell_latency_slots <= together.mean_cell_latency_slots


@given(burst=st.integers(1, 100), q_r=st.integers(1, 20), tau=st.integers(1, 50))
def test_enough_credits_means_no_stall(burst, q_r, tau):
    b = fc.burst_latency(burst, max(q_r, tau), tau, 0)
    assert b.latency_slots == burst                # one cell per slot, then delta_d + 1 = 1


# ------------------------------------------------------------ CICQ (sections 4.1, 4.2)

@given(n=st.integers(1, 256), tau=st.integers(1, 4096), p=st.integers(1, 8), k=st.integers(1, 4))
def test_ideal_sfc_is_2_n_tau_and_n_over_2_less(n, tau, p, k):
    s = xm.sfc_cicq(n, tau, p, k, rule="ideal")
    assert s.total_cells == pytest.approx(2 * n * p * k * tau, rel=1e-12)
    assert s.credit_total_cells == n * n * p * k * tau == xm.credit_cicq(n, tau, p, k).total_cells
    assert s.reduction_factor == pytest.approx(n / 2, rel=1e-12)
    assert s.q_rtx == pytest.approx(s.n_ports * s.priorities * s.q_r, rel=1e-12)


@given(n=st.integers(1, 256), tau=st.integers(1, 4096))
def test_ceil_rule_is_the_smallest_crosspoint_covering_the_rtt(n, tau):
    s = xm.sfc_cicq(n, tau)
    assert s.row_covers_rtt and n * (s.q_r - 1) < tau
    assert s.q_rtx == max(tau, n * s.q_r) == n * s.q_r
    assert s.total_cells == n * (n * s.q_r + s.q_rtx)
    if tau % n == 0:
        assert s.total_cells == 2 * n * tau and s.reduction_factor == n / 2


def test_given_crosspoint_size_and_qrtx_rule():
    # Q_RTX = max(tau, Q_R N): a row smaller than tau still needs tau of retransmission buffer.
    s = xm.sfc_cicq(16, 64, q_r=2)
    assert s.rule == "given" and s.q_rtx == 64 and not s.row_covers_rtt
    assert s.total_cells == 16 * (16 * 2 + 64)
    assert xm.sfc_cicq(16, 64, q_r=8).q_rtx == 128


def test_paper_003_memory_totals_byte_granular():
    # 250 B per crosspoint per RTT (one-byte cells): 8 ports x 4 RTT = 64000 B;
    # 32 ports, 2 and 4 RTT = 512000 B and 1024000 B.
    assert xm.credit_cicq(8, 250, rtts=4).total_cells == 64_000
    assert xm.credit_cicq(32, 250, rtts=2).total_cells == 512_000
    assert xm.credit_cicq(32, 250, rtts=4).total_cells == 1_024_000
    assert xm.credit_cicq(4, 10, priorities=3).crosspoint_cells == 30


# ------------------------------------------------------------ field widths (section 6.1)

def test_field_widths():
    # N = 16, tau = 32, Q_R = floor(32/16) + 2 = 4, Q_RTX = Q_R N = 64: 6-bit sequence numbers,
    # ACK/NAK = 1 + 4 + 6 bits.
    w = xm.field_widths(16, 64)
    assert (w.sequence_bits, w.flag_bits, w.buffer_id_bits, w.acknak_bits) == (6, 1, 4, 11)
    assert xm.field_widths(16, 65).sequence_bits == 7
    assert xm.field_widths(64, 64, credit_bits=7).acknak_bits == 1 + 6 + 6 + 7
    assert xm.field_widths(1, 1).acknak_bits == 1
    assert xm.field_widths(16, 63.5).q_rtx == 64   # a fractional (ideal) window rounds up


# ------------------------------------------------------------ SymPy forms

EXPR_NUMERIC = {
    "slot_seconds": lambda v: fc.slot_seconds(v["R"], v["L"]),
    "round_trip_slots": lambda v: fc.round_trip_slots(v["R"], v["RTT"], v["L"]).rtt_slots,
    "max_utilization": lambda v: fc.max_utilization(v["Q_R"], v["tau"]).utilization,
    "credit_total_cells": lambda v: fc.buffer_requirement("credit", v["tau"], v["M"], v["links"]).total_cells,
    "grant_total_cells": lambda v: fc.buffer_requirement("grant", v["tau"], v["M"], v["links"]).total_cells,
    "acknak_total_cells": lambda v: fc.buffer_requirement("acknak", v["tau"], v["M"], v["links"]).total_cells,
    "credit_restart_slots": lambda v: fc.restart_time("credit", v["tau"], v["delta_c"]).restart_slots,
    "grant_restart_slots": lambda v: fc.restart_time("grant", v["tau"], v["delta_c"]).restart_slots,
    "acknak_restart_slots": lambda v: fc.restart_time("acknak", v["tau"], v["delta_c"]).restart_slots,
    "burst_round_trips": lambda v: fc.burst_latency(v["B"], v["Q_R"], v["tau"], v["delta_d"]).round_trips,
    "burst_latency_slots": lambda v: fc.burst_latency(v["B"], v["Q_R"], v["tau"], v["delta_d"]).latency_slots,
    "burst_mean_cell_latency_together":
        lambda v: fc.burst_latency(v["B"], v["Q_R"], v["tau"], v["delta_d"]).mean_cell_latency_slots,
    "burst_mean_cell_latency_one_per_slot":
        lambda v: fc.burst_latency(v["B"], v["Q_R"], v["tau"], v["delta_d"], "one_per_slot").mean_cell_latency_slots,
    "cicq_credit_total_cells": lambda v: xm.credit_cicq(v["N"], v["tau"], v["P"], v["K"]).total_cells,
    "sfc_q_r_ceil": lambda v: xm.sfc_cicq(v["N"], v["tau"], v["P"], v["K"]).q_r,
    "sfc_q_r_ideal": lambda v: xm.sfc_cicq(v["N"], v["tau"], v["P"], v["K"], rule="ideal").q_r,
    "sfc_q_r_paper": lambda v: xm.sfc_cicq(v["N"], v["tau"], v["P"], v["K"], rule="paper").q_r,
    "sfc_q_rtx": lambda v: xm.sfc_cicq(v["N"], v["tau"], v["P"], v["K"], q_r=v["Q_R"]).q_rtx,
    "sfc_total_cells": lambda v: xm.sfc_cicq(v["N"], v["tau"], v["P"], v["K"], q_r=v["Q_R"]).total_cells,
    "sfc_reduction_factor": lambda v: xm.sfc_cicq(v["N"], v["tau"], v["P"], v["K"], q_r=v["Q_R"]).reduction_factor,
    "sequence_bits": lambda v: xm.field_widths(v["M"], v["Q_RTX"]).sequence_bits,
    "acknak_bits": lambda v: xm.field_widths(v["M"], v["Q_RTX"], v["C"]).acknak_bits,
}


def test_every_expression_has_a_numeric_check():
    assert set(fc.expressions()) == set(EXPR_NUMERIC)


@given(data=st.data())
def test_sympy_expressions_equal_the_numeric_functions(data):
    import sympy

    tau = data.draw(st.integers(1, 200))
    point = {"R": data.draw(st.sampled_from([1e9, 10e9, 25e9, 100e9])),
             "RTT": data.draw(st.sampled_from([1e-7, 2e-7, 3.3e-7, 1e-6, 5e-6])),
             "L": data.draw(st.sampled_from([64, 512, 2048, 4096])),
             "tau": tau, "Q_R": data.draw(st.integers(1, 64)), "M": data.draw(st.one_of(st.sampled_from([1, 2, 16]), st.integers(1, 300))),
             "links": data.draw(st.integers(1, 64)), "delta_c": data.draw(st.integers(0, tau)),
             "delta_d": data.draw(st.integers(0, tau)), "B": data.draw(st.integers(1, 500)),
             "N": data.draw(st.integers(1, 128)), "P": data.draw(st.integers(1, 8)),
             "K": data.draw(st.integers(1, 4)), "Q_RTX": data.draw(st.one_of(st.sampled_from([1, 2, 64, 1024]), st.integers(1, 5000))),
             "C": data.draw(st.integers(0, 16))}
    for name, expr in fc.expressions().items():
        subs = {s: sympy.nsimplify(point[s.name]) for s in expr.free_symbols}
        exact = expr.subs(subs)
        assert float(exact) == pytest.approx(float(EXPR_NUMERIC[name](point)), rel=1e-12, abs=1e-12), name


# ------------------------------------------------------------ monotonicity

@given(burst=st.integers(1, 100), q_r=st.integers(1, 20), tau=st.integers(1, 40), data=st.data())
def test_burst_latency_monotone(burst, q_r, tau, data):
    delta_d = data.draw(st.integers(0, tau))
    base = fc.burst_latency(burst, q_r, tau, delta_d).latency_slots
    assert fc.burst_latency(burst + 1, q_r, tau, delta_d).latency_slots > base           # more cells
    assert fc.burst_latency(burst, q_r + 1, tau, delta_d).latency_slots <= base          # more credits
    assert fc.burst_latency(burst, q_r, tau + 1, delta_d).latency_slots >= base          # longer loop


@given(rate=st.floats(1e6, 1e12), rtt=st.floats(1e-9, 1e-3), cell=st.integers(8, 1 << 16),
       factor=st.floats(1.0, 10.0))
def test_round_trip_grows_with_rate_and_rtt_and_shrinks_with_cell(rate, rtt, cell, factor):
    tau = fc.round_trip_slots(rate, rtt, cell).rtt_slots
    assert fc.round_trip_slots(rate * factor, rtt, cell).rtt_slots >= tau
    assert fc.round_trip_slots(rate, rtt * factor, cell).rtt_slots >= tau
    assert fc.round_trip_slots(rate, rtt, cell * 2).rtt_slots <= tau


@given(q=st.integers(1, 500), tau=st.integers(1, 500))
def test_utilization_monotone_and_bounded(q, tau):
    u = fc.max_utilization(q, tau).utilization
    assert 0 < u <= 1
    assert fc.max_utilization(q + 1, tau).utilization >= u >= fc.max_utilization(q, tau + 1).utilization


@given(n=st.integers(1, 128), tau=st.integers(1, 1000))
def test_acknak_never_needs_more_than_credit_for_many_buffers(n, tau):
    # tau + M <= M tau unless both are small: the section 2.5 scaling argument.
    credit = fc.buffer_requirement("credit", tau, n).total_cells
    acknak = fc.buffer_requirement("acknak", tau, n).total_cells
    assert acknak <= credit + 1 and (acknak <= credit or n == 1 or tau == 1)


# ------------------------------------------------------------ inputs

@pytest.mark.parametrize("call, parameter", [
    (lambda: fc.round_trip_slots(-1e9, 1e-7, 512), "link_rate_bps"),
    (lambda: fc.round_trip_slots(1e9, 0, 512), "rtt_s"),
    (lambda: fc.round_trip_slots(1e9, 1e-7, 12.5), "cell_bits"),
    (lambda: fc.max_utilization(0, 4), "q_r"),
    (lambda: fc.buffer_requirement("xon", 4), "protocol"),
    (lambda: fc.buffer_requirement("credit", 0), "rtt_slots"),
    (lambda: fc.restart_time("credit", 4, 5), "control_delay_slots"),
    (lambda: fc.burst_latency(0, 2, 4, 2), "burst_cells"),
    (lambda: fc.burst_latency(6, 2, 4, 5), "data_delay_slots"),
    (lambda: fc.burst_latency(6, 2, 4, 2, "poisson"), "arrivals"),
    (lambda: xm.sfc_cicq(0, 4), "n_ports"),
    (lambda: xm.sfc_cicq(4, 4, rule="floor"), "rule"),
    (lambda: xm.credit_cicq(4, 4, priorities=0), "priorities"),
    (lambda: xm.field_widths(0, 4), "downstream_buffers"),
])
def test_bad_input_names_the_parameter_in_one_line(call, parameter):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.parameter == parameter and "\n" not in str(err.value)


def test_import_loads_no_sympy_scipy_or_numba():
    code = ("import sys, switchq.solvers.flow_control; "
            "print(sorted(m for m in ('sympy', 'scipy', 'numba', 'pint') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
