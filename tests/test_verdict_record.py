"""Every report's quick build judges every claim through the claims engine, on enough replications.

Issue "Verdicts that prove": no verdict in any report is built from fewer than 5 replications (or batches) or
from point values. The engine keeps every verdict it makes in ``claims.RECORD`` with the report that made it;
this test builds each report's quick build and reads that record.
"""

import pytest

from switchq.validate.reports import build_report, claims, report_names

# How an interval may be made (switchq.validate.result.Estimate.method): simulated ones and exact values.
METHODS = {"t", "log", "logit", "clipped", "paired", "exact"}


# Every declared report (found from the registry, none listed here) is built, quick and with no store, in CI.
@pytest.mark.parametrize("name", report_names())
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
