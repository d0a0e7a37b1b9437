"""Progress within a simulated point (issue 34, item 3): the replication runner calls ``on_replication(done,
total)`` as each replication finishes, from ``harness.run`` and from the sweep engine, and only observes: the
numbers are the same with it as without it."""

from __future__ import annotations

import pytest

from switchq import registry
from switchq.models import Traffic
from switchq.api import Switch
from switchq.sweeps import plan_sweep, run_plan
from switchq.validate.harness import RunSettings, run, run_replications


def _voq(settings, on_replication=None):
    d = registry.get_architecture("voq")
    return run(d, Switch(8, "voq"), Traffic(0.6), settings, on_replication=on_replication)


@pytest.mark.parametrize("workers", [1, 2])
def test_the_callback_is_called_once_per_replication_with_increasing_counts_and_changes_nothing(workers):
    # With 2 workers the replications come back through joblib's generator, in order, each as it is ready.
    settings = RunSettings(slots=2000, replications=5, seed=7, workers=workers)
    calls = []
    watched = _voq(settings, lambda done, total: calls.append((done, total)))
    assert calls == [(k, 5) for k in range(1, 6)]
    plain = _voq(settings)
    assert watched.to_dict().keys() == plain.to_dict().keys()
    for k, v in plain.to_dict().items():
        if k != "wall_seconds":
            assert watched.to_dict()[k] == v, k


def test_each_call_comes_as_its_replication_finishes_not_at_the_end():
    seen, calls = [], []

    def replicate(i):
        seen.append(i)
        return i

    run_replications(replicate, [(i,) for i in range(4)],
                     on_replication=lambda done, total: calls.append((done, total, len(seen))))
    # Replication k is reported before replication k + 1 has started.
    assert calls == [(1, 4, 1), (2, 4, 2), (3, 4, 3), (4, 4, 4)]


def test_a_precision_target_counts_on_across_its_rounds():
    settings = RunSettings(slots=2000, replications=5, seed=3, precision=0.0005, max_replications=12)
    calls = []
    r = _voq(settings, lambda done, total: calls.append((done, total)))
    n = r.settings.replications
    assert n > 5, "the target should need a second round"
    done = [d for d, _ in calls]
    assert done == list(range(1, n + 1))            # one call per replication, counting on across rounds
    assert calls[0][1] == 5 and calls[-1] == (n, n)
    assert all(d <= t for d, t in calls)


def test_the_sweep_engine_reports_the_replications_of_the_point_it_runs():
    plan = plan_sweep("voq", {"load": "0.5,0.6"}, {"ports": "8"}, simulate=True, slots=2000, replications=3,
                      check=False)
    calls = []
    watched = run_plan(plan, store=None, workers=1, on_replication=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)] * 2      # each point's replications, point after point
    plain = run_plan(plan_sweep("voq", {"load": "0.5,0.6"}, {"ports": "8"}, simulate=True, slots=2000,
                                replications=3, check=False), store=None, workers=1)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "wall_seconds"} for r in rows]  # noqa: E731
    assert strip(watched.rows()) == strip(plain.rows())
