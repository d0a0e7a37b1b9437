"""Shared fixtures and Hypothesis profiles.

The ``ci`` profile (selected when CI=true) keeps property tests to a budget
that fits the suite's 15-minute limit on two cores; locally more examples run.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")
