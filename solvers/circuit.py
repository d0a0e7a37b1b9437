"""Saturation throughput of circuit-switched HIPPI LANs (paper 001, Ma & Steenkiste, §2, §4-§6).

Which answer applies (:func:`saturation_throughput` picks it):

- **No conflicts** (N = 2, destinations the other node): every packet
  costs its overhead c and its transfer T, so by renewal-reward the
  throughput is E[T] / (E[T] + c) exactly, c = select + set-up per attempt
  (distributed; one attempt per packet, it is never rejected), the select
  time (central), or 0 (ideal).
- **Ideal switch, fixed sizes**: all circuits end together, so the switch
  is slotted. Under the nanosecond clock (``--resolution ns``: a batch of
  ends matched together) the paper's central rule is the ``random`` window policy:
  :mod:`switchq.solvers.hol` (FIFO) and :mod:`switchq.solvers.window` when
  destinations are uniform over all N outputs. With destinations over the
  *other* N - 1 nodes (the paper's network) an output never contends with
  its own node's input; inputs and outputs can no longer be relabelled
  apart, so the lumping of those chains fails and :func:`others_chain`
  solves the full chain instead (small N and W only). It raises the
  throughput a little (N = 3 FIFO: 0.75 against 0.6825). FIFO gives the
  same under the default 1 us clock, whose ends are matched one at a time
  in random order: every output with a contender at the end of the tick
  still takes one of them, and which one does not matter (each contender's
  head is for it). A window does not: its chains are for ``ns`` only.
- **Ideal switch, variable sizes, FIFO**: Karol's N -> infinity argument
  in continuous time. The head-of-line packets for one output form an
  M/G/1 queue (Poisson arrivals in the limit, random order of service:
  the output picks at random), and there is one head-of-line packet per
  input, so one per output on average: rho + rho^2 (1 + C^2) / (2 (1 - rho))
  = 1, with C^2 the squared coefficient of variation of the transfer time.
  Hence rho = 1 / (1 + sqrt((1 + C^2) / 2)): 2 - sqrt(2) for fixed sizes
  (Karol et al. 1987), 1/2 for exponential ones (the result of Chang, Lee &
  Yu for variable-length packets). Finite N sits above it (measured error in
  :data:`FIFO_LIMIT_ERROR`).
- **Overhead with conflicts, FIFO** (an approximation, :func:`overhead_fifo`):
  the same queue with the circuit's holding time H = (set-up held) + T as
  service, plus a Little's-law term for the packets still being selected;
  the retry gap (an output freed while its waiters are mid-attempt stays
  idle) is neglected, so it reads high; its error is measured
  (:data:`OVERHEAD_ERROR`).
- **Logical channels, L >= the destinations, ideal**: 1 (§5: every free
  output always has a taker). Under the 1 us clock each circuit's end is
  matched on its own, and the input freed always has a packet for the
  output freed with it: exactly 1. Under ``--resolution ns`` with
  destinations over the other nodes it is 1 only while no two circuits end
  together: when they do (100-byte packets all last 1 us), the random pick
  can leave an input whose only free output is its own idle until the next
  event (:data:`CHANNELS_ERROR`, measured; fixed sizes: no analytic model).

Anything else: no analytic model (windows with variable sizes or overhead,
channels with overhead): ``switchq simulate circuit``.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from switchq.errors import InputError

from .figures import figure

__all__ = ["CircuitSaturation", "saturation_throughput", "size_moments", "fifo_limit", "no_conflict",
           "overhead_fifo", "others_chain", "FIFO_LIMIT_ERROR", "OVERHEAD_ERROR", "CHANNELS_ERROR", "OTHERS_STATES"]

SOURCE = "Ma & Steenkiste, 'Performance of circuit switched LANs under different traffic conditions' (paper 001)"
# Largest full chain others_chain builds: (N - 1)^(N W) states.
OTHERS_STATES = 1100
# Measured: |simulated N - limit| over the report's grid (N = 32, uniform and bimodal sizes, seed 1).
FIFO_LIMIT_ERROR = 0.03
# Measured (reports/circuit.md, seed 1): the overhead approximation against simulation, N = 32, FIFO, fixed
# 2000-64000 B under the four readings of link rate and claim (worst 0.049: 1600 Mbit/s, 2000 B, where retry
# gaps matter most; 0.028 at the defaults) and bimodal 32000/100 B (0.009).
OVERHEAD_ERROR = 0.05
# Measured: logical channels over the other nodes, N = 8, bimodal 16000/100 B at BinL 0.9: 0.996.
CHANNELS_ERROR = 0.005


@dataclass(frozen=True)
class CircuitSaturation:
    """An analytic saturation throughput (None: no analytic model), how it was found, and its error."""

    saturation_throughput: float | None = figure("1", main=True)
    method: str = figure()
    error: float = figure("1", default=0.0)
    source: str = figure(default=SOURCE)

    def to_dict(self) -> dict:
        return {"saturation_throughput": self.saturation_throughput, "method": self.method,
                "error": self.error, "source": self.source}


def size_moments(traffic) -> tuple[float, float]:
    """E[S] and E[S^2] of a packet's size in bytes (a train's packets one by one).

    Examples
    --------
    >>> from switchq.models.circuit import CircuitTraffic
    >>> [round(x, 6) for x in size_moments(CircuitTraffic("uniform", size_min=0, size_max=2))]
    [1.0, 1.666667]
    """
    t = traffic
    if t.sizes == "fixed":
        return float(t.size), float(t.size) ** 2
    if t.sizes == "uniform":
        a, b = t.size_min, t.size_max
        mean = (a + b) / 2
        return mean, ((b - a + 1) ** 2 - 1) / 12 + mean ** 2
    p = t.long_packet_share(t.long_bytes)
    k = t.train if t.sizes == "train" else 1
    piece = t.long / k
    packets = p * k + 1 - p
    return (p * t.long + (1 - p) * t.short) / packets, (p * k * piece ** 2 + (1 - p) * t.short ** 2) / packets


def fifo_limit(c2: float) -> float:
    """N -> infinity FIFO saturation throughput with transfer times of squared coefficient of variation c2.

    Examples
    --------
    >>> round(fifo_limit(0.0), 6), fifo_limit(1.0)     # Karol's 2 - sqrt(2); exponential sizes
    (0.585786, 0.5)
    """
    return 1.0 / (1.0 + math.sqrt((1.0 + c2) / 2.0))


def _on_clock(switch, seconds: float) -> float:
    """A duration as the simulator's clock keeps it: whole microseconds under the paper's 1 us clock."""
    return math.floor(seconds * 1e6 + 0.5) * 1e-6 if switch.resolution == "1us" else seconds   # half up


def _overhead(switch) -> tuple[float, float, float]:
    """(c, selecting, held): overhead per packet without conflicts, the part before the output is checked
    (the packet is not yet contending), and the part the output is held before the transfer; in seconds, on the
    simulator's clock (the paper's 2 and 5 us are whole ticks)."""
    if switch.ideal:
        return 0.0, 0.0, 0.0
    select, setup = _on_clock(switch, switch.select_time), _on_clock(switch, switch.setup_time)
    if switch.control == "central":
        return select, 0.0, select
    c = select + setup
    if switch.claim == "request":
        return c, select, setup
    return c, c, 0.0


def _mean_transfer(switch, traffic) -> float:
    """E[T] in seconds, each transfer on the simulator's clock (fixed, bimodal and train sizes; uniform sizes
    at their exact mean, which rounding to the nearest tick leaves unbiased but at the interval's ends)."""
    bit = 8 / switch.link_rate
    t = traffic
    if switch.resolution != "1us" or t.sizes == "uniform":
        return size_moments(t)[0] * bit
    transfer = lambda size: max(_on_clock(switch, size * bit), 1e-6)   # noqa: E731  (at least a tick)
    if t.sizes == "fixed":
        return transfer(t.size)
    p = t.long_packet_share(t.long_bytes)
    k = t.train if t.sizes == "train" else 1
    return (p * k * transfer(t.long / k) + (1 - p) * transfer(t.short)) / (p * k + 1 - p)


def no_conflict(switch, traffic) -> float:
    """Renewal-reward throughput without conflicts: E[T] / (E[T] + c).

    Examples
    --------
    >>> from switchq.models.circuit import CircuitSwitch, CircuitTraffic
    >>> round(no_conflict(CircuitSwitch(2), CircuitTraffic(size=2000)), 6)   # 20 us of data, 7 us overhead
    0.740741
    """
    mean_t = _mean_transfer(switch, traffic)
    c = _overhead(switch)[0]
    return 1.0 if mean_t + c == 0 else mean_t / (mean_t + c)


def overhead_fifo(switch, traffic) -> float:
    """The FIFO approximation with overhead (module docstring): solve for the rate lam of new packets per
    output, lam s + rho + lam^2 E[H^2] / (2 (1 - rho)) = 1 with rho = lam E[H], and return lam E[T]."""
    m1, m2 = size_moments(traffic)
    bit = 8 / switch.link_rate
    _, selecting, held = _overhead(switch)
    e_t = m1 * bit
    e_h = held + e_t
    e_h2 = held ** 2 + 2 * held * e_t + m2 * bit ** 2
    if e_h == 0:
        return 0.0

    def excess(lam):
        rho = lam * e_h
        return lam * selecting + rho + lam ** 2 * e_h2 / (2 * (1 - rho)) - 1

    lo, hi = 0.0, 1.0 / e_h * (1 - 1e-15)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if excess(mid) < 0 else (lo, mid)
    return lo * e_t


def others_chain(n_ports: int, window: int = 1) -> float:
    """Exact saturation throughput of the slotted switch whose destinations are uniform over the *other*
    N - 1 outputs, window ``window``, paper 001's central rule (outputs in random order, each picking a
    random cell for it among the windows of unmatched inputs).

    Notes
    -----
    The full chain: the state is every input's window, (N - 1)^(N w) states, each outcome enumerated
    exactly (orders of the outputs, picks, fresh destinations); stationary law by a dense solve.
    At most :data:`OTHERS_STATES` states.

    Examples
    --------
    >>> round(others_chain(3), 6), round(others_chain(2), 6)     # N = 2: never a conflict
    (0.75, 1.0)
    """
    n, w = n_ports, window
    if (n - 1) ** (n * w) > OTHERS_STATES:
        raise InputError("n_ports", n_ports, f"(N - 1)^(N W) <= {OTHERS_STATES} for the exact chain with "
                                             f"destinations over the other nodes (window {w})")
    dests = [[j for j in range(n) if j != i] for i in range(n)]
    states = list(itertools.product(*[list(itertools.product(dests[i], repeat=w)) for i in range(n)]))
    index = {s: k for k, s in enumerate(states)}
    p = np.zeros((len(states), len(states)))
    sent = np.zeros(len(states))
    for k, s in enumerate(states):
        for winners, prob in _picks(s, n).items():
            sent[k] += prob * len(winners)
            base = [list(row) for row in s]
            for i, pos in winners:
                del base[i][pos]
            movers = [i for i, _ in winners]
            share = prob / (n - 1) ** len(movers)
            for fresh in itertools.product(*[dests[i] for i in movers]):
                rows = [list(r) for r in base]
                for i, d in zip(movers, fresh):
                    rows[i].append(d)
                p[k, index[tuple(tuple(r) for r in rows)]] += share
    a = p.T - np.eye(len(states))
    a[-1, :] = 1.0
    b = np.zeros(len(states))
    b[-1] = 1.0
    pi = np.linalg.solve(a, b)
    return float(pi @ sent) / n


def _picks(state, n) -> dict:
    """Law of the set of (input, window position) served in one slot under the random rule."""
    @functools.lru_cache(maxsize=None)
    def go(done_outputs, matched):
        able = []
        for o in range(n):
            if not done_outputs >> o & 1:
                cells = [(i, k) for i in range(n) if not matched >> i & 1 for k, d in enumerate(state[i]) if d == o]
                if cells:
                    able.append((o, cells))
        if not able:
            return {(): Fraction(1)}
        out = {}
        for o, cells in able:
            for i, k in cells:
                for rest, q in go(done_outputs | 1 << o, matched | 1 << i).items():
                    key = tuple(sorted(rest + ((i, k),)))
                    out[key] = out.get(key, 0) + q / len(able) / len(cells)
        return out
    return {k: float(v) for k, v in go(0, 0).items()}


def saturation_throughput(switch, traffic) -> CircuitSaturation:
    """The analytic saturation throughput of a circuit switch under saturated traffic, where one applies.

    Examples
    --------
    >>> from switchq.models.circuit import CircuitSwitch, CircuitTraffic
    >>> r = saturation_throughput(CircuitSwitch(2), CircuitTraffic(size=2000))
    >>> round(r.saturation_throughput, 4), r.method.split(":")[0]
    (0.7407, 'renewal-reward, no conflicts (N = 2)')
    >>> saturation_throughput(CircuitSwitch(8, "window", window=4), CircuitTraffic("uniform")).method
    'no analytic model: window scheduling with variable sizes or overhead; simulate it (switchq simulate circuit)'
    """
    n, others = switch.n_ports, traffic.destinations == "others"
    fixed = traffic.sizes == "fixed"
    if traffic.file_servers:
        return CircuitSaturation(None, "no analytic model: the file-server mix; simulate it "
                                       "(switchq simulate circuit)")
    if n == 2 and others:
        return CircuitSaturation(no_conflict(switch, traffic),
                                 "renewal-reward, no conflicts (N = 2): E[T] / (E[T] + c), exact")
    if switch.scheduling == "channels":
        destinations = n - 1 if others else n
        one_at_a_time = switch.resolution == "1us"
        if switch.ideal and switch.pool is None and switch.channels >= destinations and (one_at_a_time
                                                                                         or not (fixed and others)):
            if not others or one_at_a_time:
                return CircuitSaturation(1.0, "logical channels, one per destination, ideal switch: every free "
                                              "output always has a taker (paper 001 §5; under the 1 us clock each "
                                              "freed input takes the output freed with it), exact")
            return CircuitSaturation(1.0, "logical channels, one per destination, ideal switch: 1 (paper 001 "
                                          "§5) up to the circuits that end together, where the random pick can "
                                          "leave a node's input with only its own output free (measured)",
                                     CHANNELS_ERROR)
        return CircuitSaturation(None, "no analytic model: logical channels with overhead, a pool, fewer channels "
                                       "than destinations, or fixed sizes; simulate it (switchq simulate circuit)")
    if switch.ideal and fixed and (switch.window == 1 or switch.resolution == "ns"):
        return _slotted(n, switch.window, others)
    if switch.ideal and fixed:
        return CircuitSaturation(None, "no analytic model: a window under the 1 us clock (a tick's ends matched one "
                                       "at a time); the slotted chain is --resolution ns's; simulate it "
                                       "(switchq simulate circuit)")
    if switch.window > 1:
        return CircuitSaturation(None, "no analytic model: window scheduling with variable sizes or overhead; "
                                       "simulate it (switchq simulate circuit)")
    m1, m2 = size_moments(traffic)
    if switch.ideal:
        c2 = m2 / m1 ** 2 - 1 if m1 > 0 else 0.0
        return CircuitSaturation(fifo_limit(c2), f"N -> infinity head-of-line M/G/1 argument, C^2 = {c2:.4g}: "
                                                 "1 / (1 + sqrt((1 + C^2) / 2)); finite N reads higher",
                                 FIFO_LIMIT_ERROR)
    return CircuitSaturation(overhead_fifo(switch, traffic),
                             "approximation: N -> infinity head-of-line M/G/1 queue of circuit holding times "
                             "(set-up held + transfer) plus packets being selected; retry gaps neglected",
                             OVERHEAD_ERROR)


def _slotted(n, w, others) -> CircuitSaturation:
    from switchq.solvers import hol, window

    if others:
        if (n - 1) ** (n * w) <= OTHERS_STATES:
            return CircuitSaturation(others_chain(n, w), "exact full Markov chain of the slotted switch, "
                                                         "destinations over the other nodes (others_chain)")
        if w == 1:
            return CircuitSaturation(fifo_limit(0.0), "N -> infinity limit 2 - sqrt(2) (the other-nodes chain "
                                                      "is too large); finite N reads higher", FIFO_LIMIT_ERROR)
        return CircuitSaturation(None, "no analytic model: window chain too large for destinations over the "
                                       "other nodes; simulate it (switchq simulate circuit)")
    if w == 1:
        r = hol.saturation_throughput(n)
        return CircuitSaturation(r.saturation_throughput, r.method, source=r.source)
    if window.exact_is_tractable(n, w, "random"):
        r = window.saturation_throughput(n, w, "random")
        return CircuitSaturation(r.saturation_throughput, r.method, source=r.source)
    return CircuitSaturation(None, "no analytic model: the window chain is too large here; simulate it "
                                   "(switchq simulate circuit)")
