"""Every report's quick build judges every claim through the claims engine, on enough replications.

Issue "Verdicts that prove": no verdict in any report is built from fewer than 5 replications (or batches) or
from point values. The engine keeps every verdict it makes in ``claims.RECORD`` with the report that made it;
this test builds each report's quick build and reads that record.
"""

import pytest

from switchq.validate.reports import build_report, claims, report_names

# Quick build wall time in seconds on one core (workers=1, no store), measured on the 2-core machine with other
# builds beside it (load average 3-4): a report above 60 s is marked slow (`python -m pytest -m slow` runs it).
# A report not listed is taken as slow until measured.
QUICK_SECONDS = {"hol": 37, "cioq": 14, "pfc": 13, "multicast": 49, "circuit": 54, "sfc": 165, "hipiqs": 239,
                 "mediaworm": 477}
# How an interval may be made (switchq.validate.result.Estimate.method): simulated ones and exact values.
METHODS = {"t", "log", "logit", "clipped", "paired", "exact"}


def _reports():
    for name in report_names():
        seconds = QUICK_SECONDS.get(name)
        slow = seconds is None or seconds > 60
        yield pytest.param(name, id=name, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("name", list(_reports()))
def test_every_verdict_of_the_quick_build_stands_on_five_replications_and_an_interval(name, tmp_path):
    start = len(claims.RECORD)
    build_report(name, tmp_path, quick=True, workers=1, seed=1, store=None)
    verdicts = [v for v in claims.RECORD[start:] if v.report == name]
    assert verdicts, f"report {name} made no verdict through the claims engine"
    methods = {(v.claim, v.method) for v in verdicts if v.method not in METHODS}
    assert not methods, f"verdicts judged on intervals of no known method: {sorted(methods)[:5]}"
    few = [(v.claim, v.n) for v in verdicts if v.method != "exact" and v.n < claims.MIN_SAMPLES]
    assert not few, f"simulated verdicts on fewer than {claims.MIN_SAMPLES} replications: {few[:5]}"
    # Every disagreement carries a class the headline counts it under.
    assert all(v.kind in ("agree", *claims.CLASSES) for v in verdicts)
