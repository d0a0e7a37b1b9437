"""Report ``hipiqs``'s claims: the paper's words (paper 000), the choices it leaves open, the verdicts and how a
point is printed, for :mod:`switchq.validate.reports.hipiqs`.

Every claim is a verdict of the engine (:mod:`switchq.validate.verdict`); this module never names a class. A
claim run under several readings (HIPIQS's up-port rule and FIFO-unit storage, FIFO's routing and what
"saturates" means, the 64-node wiring) is judged under the other readings first, and the default reading's
verdict is given theirs (``readings=``) with the paper's sentence that leaves the choice open (``allows=``):
:meth:`Claims.allows` finds it from the one choice in which an agreeing reading differs from the default. Every
quote is verbatim from the paper's text.
"""

from __future__ import annotations

from . import est
from .claims import AGREE, Quote, fmt, listed
from .readings import Reading

__all__ = ["Claims", "OPEN", "CHOICES", "deadlocked", "sat", "peak", "drawn", "at", "level", "diff", "judged",
           "ran_sentence"]

# ---- the paper's claims, in its words
FIFO_SATURATES = Quote("§5.2.1", "As can be seen from Fig. 7 the architecture that uses input queuing with a single "
                       "queue (labeled ‘FIFO’) saturates well before the applied load reaches 0.60.")
DAMQ_22 = Quote("§5.2.1", "The published results of [22] show that the DAMQ scheme has a saturation throughput of "
                "about 0.76 for packet sizes that are about 20% of the input buffer size.")
OVER_090 = Quote("§5.2.1", "For similar packet sizes, HIPIQS achieves a saturation throughput of over 0.90.")
ALMOST_AS_GOOD = Quote("§5.2.1", "HIPIQS performs almost as well as output queuing (labeled ‘Central Q’ denoting the "
                       "central shared buffering) for messages that are smaller than 20% of the input buffer size.")
ALL_20 = Quote("§5.2.1", "For a buffer size of 1280 flits, all three message sizes are 20% or less than the buffer "
               "size, and the performance for all three is comparable to the performance of output queuing.")
WORSE = {320: Quote("§5.2.1", "For a buffer size of 320 flits for example, messages of size 128 and 256 flits "
                    "perform considerably worse than output queuing."),
         640: Quote("§5.2.1", "Similarly, messages of size 256 flits perform considerably worse than output queuing "
                    "for a buffer size of 640 flits.")}
SAME_FRACTION = Quote("§5.2.3", "The performance of messages that are the same fraction of the input buffer size is "
                      "almost identical.")
MORE_FOR_256 = Quote("§5.2.2", "However, we see a more significant improvement in performance for a 256-flit message "
                     "for a similar increase in input buffer size.")
SIZE_COSTS = Quote("§5.3", "However, increase in system size reduces the saturation throughput of HIPIQS by a greater "
                   "amount than with output queuing.")
THROUGHPUT_64 = Quote("§5.6", "For a 64 node system, throughputs of 0.8-0.9 are achieved.")
PACKETISATION = Quote("§5.4", "In general, packetization improves saturation bandwidth but not message latency.")
NOT_SATURATED_16 = {
    "bitrev": Quote("§5.5", "The results in Fig. 12 show that for a 16 node system, bit reverse traffic does not cause "
                    "saturation for applied loads of up to 0.98 (for both message sizes)."),
    "transpose": Quote("§5.5", "Again, transpose traffic with 64-flit and 128-flit messages does not saturate for "
                       "loads of up to 0.98 in a 16-node system.")}
SATURATION_64 = {
    ("hipiqs", "bitrev"): Quote("§5.5", "For a 64-node system with HIPIQS, bit-reverse traffic does not cause "
                                "saturation for loads of up to 0.83 for a message size of 64 flits, and up to loads "
                                "of 0.75 for a message size of 128 flits."),
    ("central", "bitrev"): Quote("§5.5", "This compares well with corresponding figures of around 0.85 and 0.88 for "
                                 "output queuing."),
    ("hipiqs", "transpose"): Quote("§5.5", "In a 64-node system, saturation occurs at a load of around 0.87 for "
                                   "64-flit messages and at around 0.80 for 128-flit messages."),
    ("central", "transpose"): Quote("§5.5", "Again, this compares well with saturation loads of around 0.90 for the "
                                    "output queuing approach for both message sizes.")}
BEYOND_SATURATION = {
    "bitrev": Quote("§5.5", "HIPIQS performs better than output queuing in terms of received traffic beyond "
                    "saturation."),
    "transpose": Quote("§5.5", "Once again, for a message size of 128 flits, HIPIQS performs slightly better than "
                       "output queuing in terms of received traffic beyond saturation.")}

# ---- the choices the paper leaves open, each with the sentence that leaves it open: an ambiguity's ``allows``.
# Routing is adaptive, the selection rule (and when it is made) not given: FIFO's destination digit is not
# adaptive, so nothing allows it.
ADAPTIVE = Quote("§5.1", "adaptively towards their least common ancestor switch before turning back.")
# The input buffers are equalised, and HIPIQS's FIFO units are a component beside its input buffer: the text
# decides that they are on top of the equalised storage, so the other storage reading is run but allowed by no
# sentence (a disagreement it would mend is no ambiguity).
EQUALISED = Quote("§5.1", "In each of our experiments we equalized the total amount of buffer space taken up by all "
                  "the input buffers to the space taken up by the central buffer and the associated (small) input "
                  "buffers.")
INPUT_MODULE = Quote("§3.2", "The main components of the input module are an input buffer, routing and arbitration "
                     "logic, a $(k + 1) \\times k$ crossbar, and k small FIFO units.")
# What an input module knows of its queues (the adaptive choice's information, which §5.1 does not name).
QUEUE_STATUS = Quote("§3.2", "A number of signals are used to convey the status of the queues within the input "
                     "buffer and the status of the FIFO units.")
# A 64-node BMIN, its wiring not given (the SP2, whose boards are the other wiring run, is named a BMIN in §1).
BMIN_64 = Quote("§5.3", "To ensure that the performance of the system scales with system size, we examine the "
                "performance of a 64-node (BMIN) system.")
# Saturation read as an applied load (a latency knee) or as a received load.
SATURATION = Quote("§5.2.3", "(in terms of the applied load required for saturation, or in terms of the received "
                   "load)")
OPEN = {"up": ADAPTIVE, "wiring": BMIN_64, "saturation": SATURATION, "fifo routing": {"arrival": ADAPTIVE}}

# The report's readings (issue 36, item 1): each choice, the readings run, the default, the sentences that bear
# on it and why it is the default. The text decides where it can; where it cannot, the most literal reading.
# No default is chosen by how many claims it agrees with.
CHOICES = (
    Reading("HIPIQS's FIFO units", "on top of the equalised input buffer (extra); out of it (within)", "extra",
            (INPUT_MODULE, EQUALISED), "decided by the text: the FIFO units are a component beside the input "
            "buffer, and the input buffers are what §5.1 equalises. (Until this build the default was within, "
            "chosen because it agreed with more claims.)"),
    Reading("adaptive up port", "fewest flits queued for it in this input's buffer (input); at the whole switch "
            "(output)", "input", (ADAPTIVE, QUEUE_STATUS), "the text says only 'adaptively'; the queue status an "
            "input module is said to have is that of its own input buffer"),
    Reading("FIFO's up port", "at the head of the queue, any free up port (head); on arrival (arrival); by the "
            "destination's digit (destination)", "head", (ADAPTIVE,), "'adaptively', and a FIFO decides only for "
            "its head: it takes any up port free then; the destination's digit is not adaptive, run as a contrast"),
    Reading("saturation", "the highest received load; the applied load past which latency is 10x its zero-load "
            "value", "received load", (SATURATION,), "both allowed; 'saturation throughput' (§5.2.1) is a received "
            "load"),
    Reading("64-node wiring", "4-ary 3-tree (bmin); the SP2's 16-node boards cabled directly (boards)", "bmin",
            (BMIN_64,), "'a 64-node (BMIN) system': the 16-node BMIN of §5.1 with one more stage"),
    Reading("flow control", "credits known at once; returned 2, 8 or 32 cycles later", "at once", (),
            "the paper gives none; nothing is delayed that the paper does not delay (the gap section runs the "
            "others)"),
    Reading("routing information", "as it is; 8 or 32 cycles old", "as it is", (),
            "the paper does not say what the adaptive choice reads (the gap section runs the others)"),
)


class Claims:
    """The verdicts, rows (where, the paper says, ours, tolerance, verdict, HIPIQS reading or None) in order,
    and the choices each verdict's reading made where the paper leaves one open (``base``: the default's).

    Examples
    --------
    >>> from .claims import Exact, within
    >>> c = Claims(("input", "within"), {}, {"up": "input", "storage": "within", "wiring": "bmin"})
    >>> boards = c.one("Fig. 12", "x", "", "", within, Exact(0.85), 0.85, 0.05, reading="SP2 boards",
    ...                choices={"wiring": "boards"})
    >>> c.allows([boards]).section, c.one("Fig. 12", "x", "", "", within, Exact(0.97), 0.85, 0.05,
    ...                                   readings=[boards], allows=c.allows([boards]))
    ('§5.3', 'ambiguity')
    """

    def __init__(self, default: tuple, name: dict, base: dict):
        self.rows, self.default, self.name, self.base = [], default, name, dict(base)
        self._choices = {}                # id(verdict) -> the choices its reading made

    def one(self, where, says, ours, tol, judge, value, *args, hip=None, reading=None, choices=None, **kw):
        """One verdict: ``judge`` (within, at_least, at_most) of ``value``; ``hip`` the HIPIQS reading it ran
        under (None: not a HIPIQS claim), ``reading`` a reading's name when it is not the default, ``choices``
        what else its reading chose where the paper is open (see :data:`OPEN`)."""
        if reading is None:
            reading = "default" if hip in (None, self.default) else self.name[hip]
        v = judge(value, *args, claim=f"{where}: {says}", section=where, reading=reading, **kw)
        self.rows.append((where, says, ours, tol, v, hip))
        self._choices[id(v)] = {**self.base, **(choices or {}),
                                **({} if hip is None else {"up": hip[0], "storage": hip[1]})}
        return v

    def allows(self, others):
        """The paper's sentence leaving open the one choice in which a reading among ``others`` that agrees
        differs from the default; None when each agreeing reading differs in more than one choice (no one
        sentence allows it) or in one the paper does not leave open."""
        for v in others:
            if v != AGREE:
                continue
            differ = [(k, x) for k, x in self._choices[id(v)].items() if self.base.get(k) != x]
            if len(differ) == 1:
                quote = OPEN.get(differ[0][0])
                quote = quote.get(differ[0][1]) if isinstance(quote, dict) else quote
                if quote is not None:
                    return quote
        return None

    def each(self, where, says, tol, judge, values: dict, *args, prior=(), **kw):
        """The same claim under each HIPIQS reading (``values``: reading -> (value, ours)): the other readings
        first, then the default, given their verdicts and ``prior``'s (other readings judged before) as its
        ``readings`` with the sentence that allows them."""
        others = list(prior)
        for hip in sorted(values, key=lambda r: r == self.default):
            value, ours = values[hip]
            if hip != self.default:
                others.append(self.one(where, says, ours, tol, judge, value, *args, hip=hip, **kw))
            else:
                self.one(where, says, ours, tol, judge, value, *args, hip=hip, readings=others,
                         allows=self.allows(others), **kw)


# ---- a curve's points and how a table prints them

def deadlocked(row) -> bool:
    """A point with a deadlocked replication: drawn and tabled as deadlocked, never averaged."""
    return bool(row.get("deadlock"))


def sat(rows) -> float:
    """The highest load of a curve at which the run is stable (0 if none)."""
    stable = [r["load"] for r in rows if not r["unstable"] and not deadlocked(r)]
    return max(stable) if stable else 0.0


def peak(rows):
    """The point of a curve whose received load is highest: its saturation throughput (a deadlocked point
    is no figure of a steady state, so never the peak)."""
    return max((r for r in rows if not deadlocked(r)), key=lambda r: r["throughput"], default=rows[0])


def drawn(rows):
    """A curve's points as drawn: a deadlocked one breaks the line (NaN); the text lists it."""
    return [r["load"] for r in rows], [float("nan") if deadlocked(r) else r["throughput"] for r in rows]


def at(rows, load):
    return next(r for r in rows if r["load"] == load)


def level(row, metric: str = "throughput", digits: int = 3) -> str:
    """A point's figure for a table, with its interval, and its backlog when the run is unstable (no steady
    state: the interval is of what the overloaded run received)."""
    if deadlocked(row):
        return (f"deadlocked at {row['load']:g} ({int(row['deadlock'])} of {row.get('replications', '?')} "
                "replications): not averaged")
    text = f"{fmt(est(row, metric), digits)} at {row['load']:g}"
    if row.get("unstable"):
        return text + f" (unstable: backlog +{row.get('backlog_growth', 0):.3g} flits)"
    return text


def diff(e) -> str:
    """A paired difference as a table shows it."""
    return f"{e.value:+.3f} (95 % CI {e.low:+.3f} .. {e.high:+.3f}, paired)"


def judged(v) -> str:
    """The interval a verdict was judged on (after any replications the engine added) and on how many.

    Examples
    --------
    >>> from switchq.validate.result import Estimate
    >>> from .claims import at_least
    >>> judged(at_least(Estimate(0.02, 0.01, 0.03, n=5, method="paired", stable=True), 0.0, compares=True))
    '+0.020 ± 0.010 (paired, 5 replications)'
    >>> judged(at_least(Estimate(0.97, 0.939, 1.0, n=5, method="clipped", stable=True), 0.99))
    '0.970 [0.939, 1.000] (clipped) (5 replications)'
    """
    if v.method == "exact":
        return fmt(v, 3) + " (exact)"
    text = fmt(v, 1 if abs(v.value) >= 10 else 3, signed=v.method == "paired")
    # fmt names the method of an interval it prints as [low, high] (a clipped one), not of a symmetric one
    return text + (f" ({v.n} replications)" if text.endswith(")") else f" ({v.method}, {v.n} replications)")


def ran_sentence(ran: dict, readings: list, name: dict, default: tuple) -> str:
    """Which figures ran under which HIPIQS readings, from what ran (not from what was meant to).

    Examples
    --------
    >>> rs = [(u, x) for u in ("input", "output") for x in ("extra", "within")]
    >>> names = {r: "-".join(r) for r in rs}
    >>> ran_sentence({"Figs. 7-9": rs, "Fig. 10": rs[::2], "Fig. 11": [rs[0]], "Fig. 12": rs[::2]}, rs, names,
    ...              rs[0])
    'Figs. 7-9 ran under all four; Figs. 10 and 12 under both up-port readings with the FIFO units on top of the buffer; Fig. 11 under the default alone.'
    """
    def what(rs):
        if len(rs) == len(readings):
            return "all four"
        if len(rs) == 2 and rs[0][1] == rs[1][1] and rs[0][0] != rs[1][0]:
            return ("both up-port readings with the FIFO units "
                    + ("on top of" if rs[0][1] == "extra" else "within") + " the buffer")
        if rs == [default]:
            return "the default alone"
        return listed([name[r] for r in rs])

    groups = {}
    for figure, rs in ran.items():
        groups.setdefault(what(rs), []).append(figure)
    parts = []
    for w, figs in groups.items():
        nums = [f.replace("Figs. ", "").replace("Fig. ", "") for f in figs]
        label = figs[0] if len(figs) == 1 else "Figs. " + listed(nums)
        parts.append(f"{label} {'ran ' if not parts else ''}under {w}")
    return "; ".join(parts) + "."
