"""Paper 001's Figs. 10-11 for the ``circuit`` report: distributed control's overhead with fixed packet sizes,
under four readings of what the paper leaves open (the link rate, when a set-up holds its output) and two of
what its §6.1 means by a change of "15 %" (throughput points, or a share of the first value).

Each change is the paired difference (or ratio) of the 64000- and the 2000-byte runs (the same seed and
replications), judged by the verdict engine (:mod:`switchq.validate.verdict`). The other readings are judged
first; a default verdict is given them as ``readings`` with the paper's sentence that leaves their question
open (:data:`OPEN`), so the engine, not this module, decides whether a disagreement is an ambiguity.
"""

from __future__ import annotations

from .claims import AGREE, Quote, agreeing, at_least, at_most, fmt, listed, paired, shown, within

READ = 0.01          # how finely a change can be read off the paper's figures (throughput points)
# §6.1's "the change ... is less than 15 %" and Fig. 14's "a benefit of 20 %" read two ways: in throughput
# points (0.15 = 15 %; the paper writes every throughput as a percentage: the default), or as a share of the
# first value (a reading of its own, never in the headline).
CHANGES = ("absolute", "relative")
SIZES = (2000, 4000, 8000, 16000, 32000, 64000)     # fixed packet sizes (bytes) of Figs. 10-11 and 18
DEFAULT = ("800Mb/s", "request", "absolute")         # (link rate, when a set-up holds its output, change)
CHANGE = Quote("§6.1", "The change in performance when the long packet size is changed from 2000 bytes to 64000 "
                       "bytes is less than 15% with FIFO scheduling, but is more than 35% with window scheduling")
UNDER_75 = Quote("§6.1", "For packet sizes of 8000 bytes of smaller, the throughput remains under 75%.")
# The paper's sentence leaving each question of a reading open, in DEFAULT's order: both link rates; whether an
# output being set up is "in use" (held from the request, or only once connected); a change in % of what.
OPEN = (Quote("§1", "HIPPI networks have a link speed of 800 or 1600 Mbit/second"),
        Quote("§1", "If any of the links between the source and the destination is in use by a different "
                    "connection, the connection is rejected"),
        CHANGE)


def _change(xs, how: str) -> float:
    """The change from the first size to the last, between printed values: in throughput points, or relative
    to the first."""
    first, last = shown(xs[0]), shown(xs[-1])
    return round(last - first, 3) if how == "absolute" else (last - first) / first


def _reading_tol(xs, how: str) -> float:
    """How finely that change can be read off a figure: READ points, which relative to the start is
    READ / start."""
    return READ if how == "absolute" else READ / getattr(xs[0], "value", xs[0])


def _show_change(xs, how: str) -> str:
    c = _change(xs, how)
    return f"{c:+.3f}" if how == "absolute" else f"{100 * c:+.0f} %"


def _show_tol(xs, how: str) -> str:
    t = _reading_tol(xs, how)
    return f"±{t:g}" if how == "absolute" else f"±{100 * t:.1f} %"


def reading_name(rate: str, claim: str, how: str) -> str:
    """The name of a §6.1 reading (``default``: 800 Mbit/s, output held from the request, absolute changes)."""
    if (rate, claim, how) == ("800Mb/s", "request", "absolute"):
        return "default"
    return f"{rate} --claim {claim}, {how} changes"


def _section_6_1(add, f, w32, how: str, reading: str, others=({}, {})) -> list:
    """§6.1's two claims on a change, on one reading's FIFO and W = 32 rows, changes read ``how`` (paired
    differences, or ratios, of the 64000- and the 2000-byte runs): FIFO changes by less than 15 %, W = 32 by
    more than 35 %. ``others``: each claim's other readings (and the sentence allowing them), for the default."""
    ratio = how == "relative"
    out = []
    claims = ((f, "FIFO: 2000 -> 64000 B changes it by less than 15 %", within, 0.15),
              (w32, "W = 32: changes it by more than 35 %", at_least, 0.35))
    for k, (xs, says, judge, bound) in enumerate(claims):
        d = paired(xs[-1].row, xs[0].row, "throughput", ratio=ratio)
        ours = (f"{100 * (d.value - 1):+.1f} % (95 % CI {100 * (d.low - 1):+.1f} .. {100 * (d.high - 1):+.1f} %, "
                "paired ratio)" if ratio else f"{d.value:+.3f} (95 % CI {d.low:+.3f} .. {d.high:+.3f}, paired)")
        tol = _reading_tol(xs, how)
        args = (float(ratio), bound + tol) if judge is within else (ratio + bound, tol)
        # One claim string for every reading (the reading column says how the change is read).
        out.append(add("10-11", says, ours, f"bound, {_show_tol(xs, how)}", judge, d, *args, compares=True,
                       reading=reading, quote=CHANGE, **others[k]))
    return out


def evidence(others: dict) -> dict:
    """``readings`` and ``allows`` for a default verdict from ``others`` ({(rate, claim, how): verdict} of the
    other readings of the same claim, judged first). Each question is left open by a sentence of its own
    (:data:`OPEN`), so a reading is passed with that sentence when it differs from the default in that
    question alone and one such reading agrees; otherwise every reading is passed without a sentence (the
    paper has none allowing two questions at once): a default disagreement is then a defect saying so.

    Examples
    --------
    >>> from switchq.validate.verdict import Exact, within
    >>> one = lambda x, name: within(Exact(x), 0.0, 0.1, claim="c", reading=name)
    >>> e = evidence({("1600Mb/s", "request", "absolute"): one(0.05, "rate"),
    ...               ("1600Mb/s", "connect", "absolute"): one(0.05, "rate and claim")})
    >>> [r.reading for r in e["readings"]], e["allows"].section
    (['rate'], '§1')
    """
    for k, quote in enumerate(OPEN):
        alone = [v for key, v in others.items()
                 if [x != y for x, y in zip(key, DEFAULT)] == [j == k for j in range(len(DEFAULT))]]
        if any(v == AGREE for v in alone):
            return dict(readings=alone, allows=quote)
    return dict(readings=list(others.values()))


def reproducing(agreed: dict, what: str) -> str:
    """Which reading reproduces ``what``, from each reading's (agreeing, judged) counts: the one with most
    agreements; ties and no agreement are said as such, never decided by hand."""
    most = max(k for k, _ in agreed.values())
    top = [name for name, (k, _) in agreed.items() if k == most]
    if most == 0:
        return f"neither reading reproduces {what}"
    if len(top) == len(agreed):
        return f"the {listed(top)} readings reproduce {what} equally"
    return f"the {listed(top)} reading reproduces {what}"


def figs_10_11(sim, claims, lines: list) -> tuple:
    """Run and judge Figs. 10-11, append their section to ``lines``; return the simulated points
    ((rate, claim, window) -> points by size) and the FIFO approximation ((rate, claim) -> values by size)."""
    from switchq.solvers import circuit as solver

    add = claims.add
    sizes = SIZES
    readings = (("800Mb/s", "request"), ("800Mb/s", "connect"), ("1600Mb/s", "request"), ("1600Mb/s", "connect"))
    rate_bits = {"800Mb/s": 800e6, "1600Mb/s": 1600e6}
    lines += ["## Figs. 10-11: overhead (2 + 5 us per attempt), fixed sizes, N = 32", "",
              "Four readings of what the paper leaves open: the link rate (800 or 1600 Mbit/s) and when a set-up "
              "holds its output (from the request, or only once connected).", "",
              "| reading | scheduling | " + " | ".join(f"{s} B" for s in sizes)
              + " | change 2000 -> 64000 | relative change |",
              "|---|---|" + "---:|" * (len(sizes) + 2)]
    over = {}
    fixed_approx = {}
    for rate, claim in readings:
        for w in (1, 32):
            over[rate, claim, w] = sim([{"ports": 32, "size": s * 8, "link_rate": rate_bits[rate], "claim": claim,
                                         "scheduling": "window" if w > 1 else "fifo", "window": w} for s in sizes])
            es = over[rate, claim, w]
            lines.append(f"| {rate}, {claim} | {'FIFO' if w == 1 else 'W = 32'} | "
                         + " | ".join(f"{e.value:.3f}" for e in es)
                         + "".join(f" | {_show_change(es, how)}" for how in CHANGES) + " |")
            if w == 1:
                a = [solver.overhead_fifo(*solver_point(32, 0, 0, s, rate_bits[rate], claim)) for s in sizes]
                fixed_approx[rate, claim] = a
                lines.append(f"| {rate}, {claim} | FIFO, approximation | " + " | ".join(f"{x:.3f}" for x in a)
                             + "".join(f" | {_show_change(a, how)}" for how in CHANGES) + " |")
    # Every reading's verdicts on §6.1's claims; the default's last, given the others as its readings.
    combos = [(r, c, h) for r, c in readings for h in CHANGES]
    combos.sort(key=lambda x: x == DEFAULT)
    reading_verdicts, judged = {}, ({}, {}, {})
    for rate, claim, how in combos:
        name = reading_name(rate, claim, how)
        kw = [evidence(judged[k]) if name == "default" else {} for k in range(3)]
        f, w32 = over[rate, claim, 1], over[rate, claim, 32]
        vs = _section_6_1(add, f, w32, how, name, kw[:2])
        if how == "absolute":        # not a change: judged once a (rate, claim) reading
            vs.append(add("11", "8000 B or smaller: under 75 % (W = 32 at 8000 B)", fmt(w32[2], 3), "bound",
                          at_most, w32[2], 0.75, reading=name, quote=UNDER_75, **kw[2]))
        reading_verdicts[rate, claim, how] = vs
        for k, v in enumerate(vs):
            judged[k][rate, claim, how] = v
    for rate, claim in readings:        # the third claim's verdict, shown for both change readings
        reading_verdicts[rate, claim, "relative"].append(reading_verdicts[rate, claim, "absolute"][2])
    lines += ["", "Their verdicts on the three claims of §6.1, with a change read two ways: absolute, in throughput "
                  f"points (0.15 = 15 %), read within {READ}; relative, as a share of the 2000-byte throughput, "
                  f"read within {READ} divided by that throughput (the third claim is not a change and reads the "
                  "same both ways). Each change is the paired difference (ratio) of the 64000- and the 2000-byte "
                  "runs:", "",
              "| reading | change read as | FIFO changes < 15 % | W = 32 changes > 35 % | W = 32 < 75 % up to 8000 B "
              "| agree |", "|---|---|---|---|---|---|"]
    for (rate, claim), how in ((rc, h) for rc in readings for h in CHANGES):
        v = reading_verdicts[rate, claim, how]
        lines.append(f"| {rate}, {claim} | {how} | {v[0]} | {v[1]} | {v[2]} | {agreeing(v)} of {len(v)} |")
    # Each change reading's agreements over the four (rate, claim) readings, and on the defaults alone.
    per_how = {how: [x for (_, _, h), v in reading_verdicts.items() if h == how for x in v] for how in CHANGES}
    counts = {how: (agreeing(v), len(v)) for how, v in per_how.items()}
    default = {how: reading_verdicts["800Mb/s", "request", how] for how in CHANGES}
    fifo_rel = [_change(over[r, c, 1], "relative") for r, c in readings]
    fifo_rel_ok = sum(reading_verdicts[(*rc, "relative")][0] == AGREE for rc in readings)
    # The (rate, claim) readings with most agreements, under the change reading(s) with most.
    top = max(k for k, _ in counts.values())
    hows = [how for how in CHANGES if counts[how][0] == top]
    score = {rc: sum(agreeing(reading_verdicts[(*rc, how)]) for how in hows) for rc in readings}
    best = [rc for rc in readings if score[rc] == max(score.values())]
    lines += ["", "Over the four readings, " + " and ".join(f"{k} of {n} verdicts agree with changes read as "
                                                            f"{how} ({agreeing(default[how])} of "
                                                            f"{len(default[how])} at 800 Mbit/s, request)"
                                                            for how, (k, n) in counts.items())
              + ": " + reproducing(counts, "the paper's §6.1") + f". Read as relative, FIFO's change "
              f"({100 * min(fifo_rel):+.0f} % to {100 * max(fifo_rel):+.0f} %) agrees with \"less than 15 %\" in "
              f"{fifo_rel_ok} of the {len(readings)} readings.", "",
              f"The readings with most agreements (read as {listed(hows)} changes): "
              + ", ".join(f"{r} with `--claim {c}`" for r, c in best)
              + f" (link rate {listed(sorted({r for r, _ in best}))}). No default is chosen by this count: the "
              "defaults (800 Mbit/s, request, absolute changes) and the paper's sentences behind them are in the "
              "Readings section.", ""]
    return over, fixed_approx


def solver_point(n, long, binl, size=None, rate=800e6, claim="request"):
    """The switch and traffic of a distributed FIFO point with the paper's overhead, for the solver
    (bimodal, or fixed ``size`` bytes)."""
    from switchq.models.circuit import CircuitSwitch, CircuitTraffic

    traffic = CircuitTraffic("fixed", size=size) if size else CircuitTraffic("bimodal", long=long, long_bytes=binl)
    return CircuitSwitch(n, link_rate=rate, claim=claim), traffic
