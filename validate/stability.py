"""A trend test for runs whose queues never settle: critically loaded (null-recurrent) or slowly diverging.

A queue offered exactly its capacity (load = service rate) is *null
recurrent*: it empties again and again, but started empty its backlog is a
reflected random walk, E[Q(t)] = sigma sqrt(2t / pi), so it has no steady
state and its mean wait grows like the square root of the run's length
(``simulate oq --ports 16 --load 1.0``: mean wait 81 at 20k slots, 229 at
160k). The backlog rule (:func:`~switchq.validate.harness.backlog_allowed`)
cannot see it: its noise allowance, 4 sqrt(offered x granule), is four
standard deviations of exactly this random walk, and the walk's growth per
unit offered falls like 1 / sqrt(run length), so a longer run hides it
better, not worse.

What is tested is how the mean latency grows with time. The run's measured
window is cut into segments; the latency of the units leaving segment k,
pooled over the replications (their latency sums over their counts), is
regressed on the time since the run started (warm-up included: the queues
started empty then), at the segment's middle: log L_k = a + beta log t_k.
By Little's law L follows the backlog, so beta is about 0 for a stable run
past its warm-up, 1/2 at critical load and 1 when overloaded (a backlog
growing linearly from empty); a run is flagged when beta > ``THRESHOLD``.
Too little time after the warm-up (the last segment's middle less than
``MIN_SPAN`` times the first's) leaves beta too noisy: such a run is not
judged.
Only core counters are read (``m_latency_sum``, ``m_latency_count``), so the
test is the same for a switch (latency per cell or packet) and for the
flit-level networks (per message).

A stable run whose warm-up is short beside its relaxation time (about
sigma^2 / (1 - rho)^2 slots for one queue: 9400 at OQ N=16 load 0.99) still
shows its climb to steady state as a positive beta, largest on short runs;
the threshold sits between the largest such beta seen and the smallest at
critical load. Flagged of 40 seeds, default warm-up (``-r 4``: 10
segments a replication; at 50k slots ``-r 8``; ``-r 1``: the 20 batches):

=====================  =============  =========  ===========  ==============
case                   slots          beta mean  -r 4 / -r 8  -r 1
=====================  =============  =========  ===========  ==============
oq N=16 load 1.0       20k/80k/320k   0.50       40/40 each   39, 40, 38 /40
cioq N=16 s=2 load 1   20k/80k/320k   0.50       40/40 each   39, 40, 38 /40
oq N=16 load 0.99      20k / 50k      0.20/0.10  0/40, 0/40   1/40, 0/40
voq iSLIP load 0.95    20k / 50k      0.27/0.15  0/40, 0/40   0/40, 0/40
fifo N=16 load 0.55    20k / 50k      0.00/0.00  0/40, 0/40   0/40, 0/40
=====================  =============  =========  ===========  ==============

Over replications beta's spread is 0.03 at critical load (smallest 0.44)
and at most 0.05 below it (largest 0.30); one replication has four times
the variance (16 outputs' walks instead of 64), spread 0.06-0.09, hence
its few misses and alarms.

Examples
--------
>>> names = ("m_latency_sum", "m_latency_count")
>>> t = 2000 + 2000 * np.arange(10) + 1000.0           # segment middles: 2000-slot segments after a 2000-slot warm-up
>>> def segments(latency):                              # 4 replications alike, 1000 units leaving a segment
...     return np.broadcast_to(np.stack([1000 * latency, np.full(10, 1000.0)], axis=1), (4, 10, 2))
>>> critical = trend(segments(1 + 0.8 * np.sqrt(t)), names, 2000, 2000)
>>> critical.flagged, round(critical.exponent, 2)
(True, 0.49)
>>> critical.why
'no steady state: mean latency went 44.8 -> 117 (2.6x) while the time since the start went 7x, growth exponent 0.49 > 0.375'
>>> settling = trend(segments(47 - 30 * np.exp(-t / 6000)), names, 2000, 2000)
>>> settling.flagged, round(settling.exponent, 2)
(False, 0.24)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Trend", "trend", "THRESHOLD", "MIN_SPAN", "MIN_MEASURED", "Backlog", "backlog_allowed", "Check", "judge"]

# Between the largest exponent a stable run climbing out of its warm-up showed (0.30) and the smallest a critically
# loaded one showed (0.44), over 40 seeds of each case in the module docstring's table, with -r 4.
THRESHOLD = 0.375
# A slope through fewer points says nothing.
MIN_SEGMENTS = 3
# The spread of the exponent goes like 1 / log(last segment's time / first's): with the default warm-up (10 %) the
# ratio is 7-9 and oq N=16 load 0.99 raised 0-1 alarms in 40 seeds; at 3 (warm-up 8000 for 20000 slots) 0-2; at
# 1.9 (warm-up = slots) 1 with -r 4 and 6 with -r 1. Below this a run is not judged: measure longer instead.
MIN_SPAN = 3.0
# The threshold is calibrated from 20k measured slots up; shorter runs raise too many alarms near saturation (oq N=16
# at load 0.99, -r 5, 40 seeds: 4 flagged at 5000 slots, 0 at 10000 with the largest exponent 0.37), so they are
# not judged.
MIN_MEASURED = 20_000


@dataclass(frozen=True)
class Trend:
    """The verdict: ``flagged`` when ``exponent`` (growth exponent of the mean latency in time since the run
    started) is above ``threshold``; ``growth`` is the last segment's mean latency over the first's; ``why``
    says it in one line. ``judged`` is False when the run could not be judged (too short, too long a warm-up,
    nothing leaving): ``why`` says why, and ``exponent`` is NaN when there was nothing to compute."""

    flagged: bool
    exponent: float
    threshold: float
    growth: float
    why: str
    judged: bool = True


def trend(segments, layout, segment_slots, warmup_slots, replications=None, threshold=THRESHOLD) -> Trend:
    """Judge the growth of the mean latency across a run from per-segment counters.

    ``segments`` is an array (replications, segments, counters) of each segment's counter differences in the
    order of ``layout`` (a :class:`~switchq.validate.kernel.Layout`, or just the counter names);
    ``segment_slots`` the measured slots of each segment (one number: all alike); ``warmup_slots`` the slots
    run before the first. ``replications``, if given, must match the array's first axis.
    """
    seg = np.asarray(segments, dtype=float)
    if seg.ndim == 2:
        seg = seg[None]
    names = list(getattr(layout, "names", layout))
    if seg.ndim != 3 or seg.shape[2] != len(names):
        raise ValueError(f"segments must be (replications, segments, {len(names)}), not {seg.shape}")
    if replications is not None and replications != seg.shape[0]:
        raise ValueError(f"{seg.shape[0]} replications of segments, {replications} expected")
    if "m_latency_sum" not in names or "m_latency_count" not in names:
        return Trend(False, math.nan, threshold, math.nan, "no latency counters: no trend to judge", False)
    # Pooled, not averaged per replication: a replication with nothing leaving a segment still counts elsewhere.
    total = seg[:, :, names.index("m_latency_sum")].sum(axis=0)
    count = seg[:, :, names.index("m_latency_count")].sum(axis=0)
    slots = np.broadcast_to(np.asarray(segment_slots, dtype=float), total.shape)
    # Time from the start of the run, not of measuring: a null-recurrent backlog grows like sqrt of the former.
    t = warmup_slots + np.cumsum(slots) - slots / 2
    ok = (count > 0) & (total > 0)
    if ok.sum() < MIN_SEGMENTS:
        return Trend(False, math.nan, threshold, math.nan,
                     f"only {int(ok.sum())} of {ok.size} segments had units leaving: no trend to judge", False)
    latency = total[ok] / count[ok]
    x, y = np.log(t[ok]), np.log(latency)
    x = x - x.mean()
    exponent = float(x @ (y - y.mean()) / (x @ x))
    growth = float(latency[-1] / latency[0])
    span = float(t[ok][-1] / t[ok][0])
    if span < MIN_SPAN:
        return Trend(False, exponent, threshold, growth,
                     f"the time since the start went only {span:.2g}x across the segments (at least {MIN_SPAN:g}x "
                     f"tells sqrt growth from noise): not judged; measure longer or warm up less", False)
    measured = float(slots.sum())
    if measured < MIN_MEASURED:
        return Trend(False, exponent, threshold, growth,
                     f"{measured:.0f} measured slots, under the {MIN_MEASURED} the test is calibrated for: not "
                     "judged", False)
    flagged = exponent > threshold
    why = (f"no steady state: mean latency went {latency[0]:.3g} -> {latency[-1]:.3g} ({growth:.2g}x) while the "
           f"time since the start went {span:.2g}x, growth exponent {exponent:.2f} {'>' if flagged else '<='} "
           f"{threshold:g}")
    return Trend(flagged, exponent, threshold, growth, why)


# ------------------------------------------------------------------ every test of a run, and the overall answer

@dataclass(frozen=True)
class Backlog:
    """What a declaration's stability rule measures, per replication: the backlog's growth while measuring,
    what was offered, an allowance for noise, the unit all three count, and ``granule``, E[B^2] / E[B] of
    the batches units arrive in (1: one at a time; see :func:`backlog_allowed`). ``part`` names what a part
    is (an output, a destination node..., or a function naming part j) when the kernel keeps its worst
    part, with ``part_slack`` its allowance (``part`` None: the whole backlog only)."""

    growth: np.ndarray
    offered: np.ndarray
    slack: object
    unit: str
    part: object = None
    part_slack: object = 0
    granule: object = 1.0


def backlog_allowed(offered, slack, granule=None):
    """The growth a stable backlog may show while measuring ``offered``: the stability rule's threshold,
    ``UNSTABLE_GROWTH`` x offered + ``slack``, plus, given a ``granule``, ``NOISE_SIGMAS`` standard
    deviations of the random walk of a critically loaded backlog: units arriving in batches of B (bursts to
    one output, messages of B flits) make the count offered vary by offered x E[B^2] / E[B] (``granule``),
    so the allowance is ``NOISE_SIGMAS`` x sqrt(offered x granule).

    Examples
    --------
    >>> float(backlog_allowed(10_000, 0)), float(backlog_allowed(10_000, 0, granule=1.0))
    (100.0, 500.0)
    """
    from .kernel import NOISE_SIGMAS, UNSTABLE_GROWTH

    offered = np.asarray(offered, dtype=float)
    noise = 0.0 if granule is None else NOISE_SIGMAS * np.sqrt(offered * granule)
    return UNSTABLE_GROWTH * offered + slack + noise


def _worst(growth: np.ndarray, allowed: np.ndarray) -> tuple:
    """Growth, allowance and index of the replication whose growth is furthest beyond its allowance."""
    growth, allowed = np.broadcast_arrays(np.atleast_1d(np.asarray(growth, dtype=float)), np.atleast_1d(allowed))
    r = int(np.argmax(growth - allowed))
    return float(growth[r]), float(allowed[r]), r


@dataclass(frozen=True)
class Check:
    """One stability test of a run: its ``name`` (the key ``stability_NAME`` of a result), whether it can
    see a critically loaded queue (``critical``: only the latency trend can; the backlog rules see a system
    offered more than it carries), and its ``status``: ``passed``, ``failed`` or ``not judged``, with
    ``why``."""

    name: str
    critical: bool
    status: str
    why: str = ""

    @property
    def shown(self) -> str:
        return self.status + (f": {self.why}" if self.why and self.status != "passed" else "")


def _trend_of(c, segments, declaration):
    """The trend test of the mean latency across the run (:func:`trend`) on the segments every replication
    snapshots (one long run's are its batches); None where there are none."""
    from .kernel import batch_slots

    s = c.settings
    if declaration.slotted:
        warmup, measured = s.warmup_slots, s.slots
    elif declaration.timeline is not None:
        warmup, measured = declaration.timeline(c.system, c.workload)
    else:
        return None
    if segments is None:
        return None
    return trend(segments, c.layout, batch_slots(measured, segments.shape[1]), warmup)


def judge(declaration, b: Backlog, totals, c, segments, overflow: bool) -> tuple:
    """Every stability test of a run and the overall answer: ``(unstable, checks, shown, units)``.

    ``b`` is what the declaration's rule measured (``declaration.stability(totals)``). ``unstable`` is True when a test failed, False only when a test able to see a critically loaded queue
    (the latency trend) was judged and passed and none failed, and None otherwise (not judged: ``shown``
    says why). ``shown`` holds the figures each test judged, beside their allowances, and each test's
    status as ``stability_NAME``.

    Examples
    --------
    >>> Check("latency_trend", True, "not judged", "5000 measured slots").shown
    'not judged: 5000 measured slots'
    """
    checks = [Check("storage", False, "failed" if overflow else "passed",
                    "a queue filled its storage" if overflow else "")]
    # The whole backlog, on average over the replications (noise averages out: a system that cannot carry its
    # load grows in every one) ...
    growth = float(np.mean(b.growth))
    allowed = float(backlog_allowed(np.mean(b.offered), b.slack))
    checks.append(Check("backlog", False, "failed" if growth > allowed else "passed",
                        f"the whole backlog grew by {growth:.6g} {b.unit}, {allowed:.6g} allowed"))
    # ... and in each replication with room for its noise: placements and seeds differ, and one that cannot carry
    # its load is unstable whatever the others do.
    one, one_allowed, _ = _worst(b.growth, backlog_allowed(b.offered, b.slack, b.granule))
    checks.append(Check("backlog_replication", False, "failed" if one > one_allowed else "passed",
                        f"the whole backlog grew by {one:.6g} {b.unit} in one replication, {one_allowed:.6g} "
                        "allowed"))
    shown = {"backlog_growth": growth, "backlog_growth_allowed": allowed,
             "replication_backlog_growth": one, "replication_backlog_growth_allowed": one_allowed}
    if b.part is not None:
        pg, pa, r = _worst(totals["part_growth"], backlog_allowed(totals["part_offered"], b.part_slack, b.granule))
        j = int(totals["part"][r])
        part = "none (nothing offered)" if j < 0 else b.part(j) if callable(b.part) else f"{b.part} {j}"
        checks.append(Check("backlog_part", False, "failed" if pg > pa else "passed",
                            f"the backlog of {part} grew by {pg:.6g} {b.unit}, {pa:.6g} allowed"))
        shown.update(part_backlog_growth=pg, part_backlog_growth_allowed=pa, worst_part=part)
    units = {k: b.unit for k in shown if k.endswith(("growth", "allowed"))}
    # A critically loaded (null-recurrent) queue grows by too little for the rules above: its latency grows like
    # the square root of the time since the start.
    t = _trend_of(c, segments, declaration)
    if t is None:
        checks.append(Check("latency_trend", True, "not judged", "this run keeps no segments to judge a trend on"))
    else:
        checks.append(Check("latency_trend", True, "failed" if t.flagged else "passed" if t.judged else "not judged",
                            t.why))
        shown.update(latency_trend_exponent=t.exponent, latency_trend_threshold=t.threshold,
                     latency_trend_judged=t.judged)
        if not t.judged:
            shown["latency_trend_not_judged"] = t.why
        units.update(latency_trend_exponent="1", latency_trend_threshold="1")
    failed = [k for k in checks if k.status == "failed"]
    if failed:
        unstable = True
        shown["unstable_because"] = "; ".join(k.why for k in failed)
    elif any(k.critical and k.status == "passed" for k in checks):
        unstable = False
    else:
        unstable = None
        shown["stability_not_judged"] = "; ".join(f"{k.name}: {k.why}" for k in checks
                                                  if k.critical and k.status == "not judged")
    shown.update({f"stability_{k.name}": k.shown for k in checks})
    return unstable, checks, shown, units
