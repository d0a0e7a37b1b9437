"""Shared fixtures and Hypothesis profiles.

The ``ci`` profile (selected when CI=true) keeps property tests to a budget
that fits the suite's 15-minute limit on two cores; locally more examples run.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


_QUICK_BUILDS = {}


@pytest.fixture(scope="module")
def report_catalog():
    """Report builders called directly, as ``switchq report`` calls them: with the front door's catalog
    (the reports, sweep models and sweep engine the builders are handed, never import)."""
    from switchq.reports import catalog
    from switchq.validate.reports import using

    with using(catalog()) as given:
        yield given


@pytest.fixture(scope="session")
def quick_report(tmp_path_factory):
    """``quick_report(name) -> (folder, files written, verdicts)``: a report's quick build with no store, made
    once per test process. Tests sharing a build carry ``pytest.mark.xdist_group("report-NAME")`` so pytest-xdist
    (``--dist loadgroup``, as the README's test command runs it) runs them in one process and the build is not repeated."""
    from switchq.reports import build_report
    from switchq.validate.reports import claims

    def build(name):
        if name not in _QUICK_BUILDS:
            out = tmp_path_factory.mktemp(f"report-{name}")
            start = len(claims.RECORD)
            written = build_report(name, out, quick=True, workers=1, seed=1, store=None)
            _QUICK_BUILDS[name] = (out, written, [v for v in claims.RECORD[start:] if v.report == name])
        return _QUICK_BUILDS[name]
    return build
