"""The derivation the sfc report quotes (switchq.solvers.sfc_evidence): the paper's printed rule floor(B/Q_R),
checked against an independent count, and where the paper's printed numbers part from it."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from switchq.errors import InputError
from switchq.solvers.sfc_evidence import printed_burst_rule

# Paper 002 §5: the RTT multiples it prints for Fig. 4 a (B = 10) and b (B = 20), N = 16, Q_R = 2, 3, 4, 6.
PRINTED = {10: (5, 4, 3, 2), 20: (10, 7, 5, 4)}
Q_RS = (2, 3, 4, 6)


def _whole_rounds(b, q):
    # Independent of the floor: how many times Q_R whole cells fit in B, counted one round at a time.
    k = 0
    while (k + 1) * q <= b:
        k += 1
    return k


@given(b=st.integers(1, 500), q=st.integers(1, 64))
def test_printed_burst_rule_counts_whole_crosspoints_in_a_burst(b, q):
    assert printed_burst_rule(b, q).value == _whole_rounds(b, q)


def test_printed_burst_rule_on_the_papers_bursts_and_crosspoints():
    # floor(10/2) = 5 and floor(20/2) = 10, floor(20/4) = 5 are the numbers the paper prints; the others are not:
    # floor(10/3) = 3 where it prints 4, floor(20/3) = 6 where it prints 7 (its printed numbers are ceilings).
    got = {b: tuple(printed_burst_rule(b, q).value for q in Q_RS) for b in PRINTED}
    assert got == {10: (5, 3, 2, 1), 20: (10, 6, 5, 3)}
    same = [(b, q) for b in PRINTED for q, g, p in zip(Q_RS, got[b], PRINTED[b]) if g == p]
    assert same == [(10, 2), (20, 2), (20, 4)]
    assert printed_burst_rule(10.0, 3).why == "floor(B/Q_R) = floor(10/3) = 3 round trips"


def test_printed_burst_rule_refuses_what_is_not_a_burst_or_a_buffer():
    with pytest.raises(InputError):
        printed_burst_rule(0.5, 2)
    with pytest.raises(InputError):
        printed_burst_rule(10, 0)


def test_the_report_judges_the_papers_evaluation_against_its_rule_as_written():
    # The claim's target is floor(B/Q_R) as the paper evaluates it for each Q_R (the ceilings: 4 at B = 10,
    # Q_R = 3), at N = 16 and at N = 64 alike (the same B and Q_R, the same sentence); the rule computed as written
    # can contradict it (3 round trips against 4), the derivation a miss is judged against.
    from switchq.validate.reports.sfc.bursty import PAPER_RTT_MULTIPLES, paper_rule

    d = paper_rule(10, 3)
    assert d.value == 3 and d.relation == "equals" and "evaluates to 5" in d.quote.text
    assert d.name == "switchq.solvers.sfc_evidence.printed_burst_rule"
    assert paper_rule(20, 3).value == 6 and "around 10, 7, 5, and 4" in paper_rule(20, 3).quote.text
    # the evaluations as printed: 5, 4, 3, 2 and 10, 7, 5, 4 for Q_R = 2, 3, 4, 6
    assert [PAPER_RTT_MULTIPLES[10][q] for q in (2, 3, 4, 6)] == [5, 4, 3, 2]
    assert [PAPER_RTT_MULTIPLES[20][q] for q in (2, 3, 4, 6)] == [10, 7, 5, 4]
