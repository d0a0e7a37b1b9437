"""The Student-t table the simulator's intervals use instead of importing SciPy (validate/student.py)."""

import pytest
from scipy import stats

from switchq.validate.student import TABLE, t_quantile


@pytest.mark.parametrize("p", sorted(TABLE))
def test_every_kept_quantile_is_scipys_to_the_last_bit(p):
    # Exact equality: the table stands in for scipy.stats.t.ppf, so intervals and verdicts must not move by
    # even one ulp (the regression digests of the reports' numbers depend on them).
    for dof, value in enumerate(TABLE[p], 1):
        assert value == float(stats.t.ppf(p, dof)), (p, dof)


def test_beyond_the_table_scipy_answers():
    assert t_quantile(0.975, 31) == float(stats.t.ppf(0.975, 31))
    assert t_quantile(0.9, 4) == float(stats.t.ppf(0.9, 4))
