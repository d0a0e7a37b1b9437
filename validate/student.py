"""Student-t quantiles for the simulator's 95 % intervals and verdicts, without importing SciPy.

Every simulated figure's interval needs t(0.975, n - 1) and every verdict t(0.9995, n - 1), for n
replications or batches (5 to a few dozen). ``scipy.stats`` costs 0.4-0.9 s to import, more than
a whole tiny simulation (issue 26's start-up target is 0.8 s), so the values for 1 to 30 degrees of
freedom are kept here, as ``scipy.stats.t.ppf`` gives them to the last bit (tests/test_student.py
checks each), and SciPy is asked only beyond that.

Examples
--------
>>> round(t_quantile(0.975, 4), 4)
2.7764
>>> round(t_quantile(0.975, 200), 4)
1.9719
"""

from __future__ import annotations

__all__ = ["t_quantile", "TABLE"]

# scipy.stats.t.ppf(p, dof) for dof = 1 .. 30.
TABLE = {
    0.975: (12.706204736174694, 4.302652729749462, 3.1824463052837078, 2.7764451051977934, 2.5705818356363146,
            2.4469118511449786, 2.364624251592784, 2.306004135204166, 2.262157162798205, 2.228138851986274,
            2.200985160091639, 2.1788128296672284, 2.1603686564627913, 2.144786687917804, 2.131449545559776,
            2.1199052992212546, 2.1098155778333156, 2.1009220402410382, 2.0930240544083087, 2.085963447265864,
            2.0796138447276795, 2.0738730679040254, 2.0686576104190486, 2.0638985616280245, 2.0595385527532972,
            2.0555294386428735, 2.0518305164802846, 2.0484071417952454, 2.045229642132703, 2.0422724563012378),
    0.9995: (636.6192487687897, 31.599054576445365, 12.923978636687961, 8.610301581379522, 6.868826625881276,
             5.95881617881889, 5.407882520861828, 5.041305433373456, 4.780912585931217, 4.586893858702708,
             4.436979338234516, 4.3177912836062475, 4.22083172770718, 4.140454112738259, 4.072765195903846,
             4.014996327184108, 3.965126272119082, 3.9216458250852084, 3.883405852592131, 3.8495162749308744,
             3.8192771642745096, 3.792130671698437, 3.7676268043118246, 3.745398619290096, 3.725143949728693,
             3.7066117434809525, 3.6895917134592784, 3.6739064007013176, 3.6594050194663748, 3.6459586350420627),
}


def t_quantile(p: float, dof: int) -> float:
    """The ``p`` quantile of Student's t with ``dof`` degrees of freedom (``scipy.stats.t.ppf(p, dof)``)."""
    values = TABLE.get(p)
    if values is not None and 1 <= dof <= len(values):
        return values[dof - 1]
    from scipy import stats

    return float(stats.t.ppf(p, dof))
