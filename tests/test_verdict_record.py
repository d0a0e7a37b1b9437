"""Every report's quick build judges every claim through the claims engine, on enough replications.

Issue "Verdicts that prove": no verdict in any report is built from fewer than 5 replications (or batches) or
from point values. The engine keeps every verdict it makes in ``claims.RECORD`` with the report that made it;
this test builds each report's quick build and reads that record.
"""

import pytest

from switchq.reports import report_names
from switchq.validate.reports import claims

# How an interval may be made (switchq.validate.result.Estimate.method): simulated ones and exact values; "welch",
# the difference of two simulators' means (switchq against BookSim2: their random numbers cannot be paired).
METHODS = {"t", "log", "logit", "clipped", "paired", "exact", "welch"}


# Every declared report (found from the registry, none listed here) is built, quick and with no store, in CI, but
# one whose quick build alone would take most of CI's 15 minutes. Quick build wall times in seconds on one core
# of the 2-core machine with other work beside it (load average 5-7), 2026-11-26; a report not listed runs.
QUICK_SECONDS = {"hol": 69, "cioq": 19, "pfc": 17, "circuit": 87, "multicast": 89, "sfc": 236, "hipiqs": 288,
                 "mediaworm": 891}
CI_SECONDS = 400   # mediaworm's build runs with `-m slow`; in CI test_mediaworm_report builds it on a stand-in kernel


def _reports():
    for name in report_names():
        slow = QUICK_SECONDS.get(name, 0) > CI_SECONDS
        yield pytest.param(name, id=name, marks=[pytest.mark.xdist_group(f"report-{name}")]
                           + ([pytest.mark.slow] if slow else []))


@pytest.mark.parametrize("name", list(_reports()))
def test_every_verdict_of_the_quick_build_stands_on_five_replications_and_an_interval(name, quick_report):
    _, _, verdicts = quick_report(name)
    assert verdicts, f"report {name} made no verdict through the claims engine"
    methods = {(v.claim, v.method) for v in verdicts if v.method not in METHODS}
    assert not methods, f"verdicts judged on intervals of no known method: {sorted(methods)[:5]}"
    few = [(v.claim, v.n) for v in verdicts if v.method != "exact" and v.n < claims.MIN_SAMPLES]
    assert not few, f"simulated verdicts on fewer than {claims.MIN_SAMPLES} replications: {few[:5]}"
    # Every disagreement carries a class the headline counts it under.
    assert all(v.kind in ("agree", *claims.CLASSES) for v in verdicts)
