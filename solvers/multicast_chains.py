"""Exact lumped Markov chains of saturated multicast switches (paper 003 §2, §3.1).

With every active input backlogged (Karol et al.'s saturation argument) the
head-of-line process is a finite Markov chain; the saturation load is its rate
of finished packets per input per slot (:mod:`.multicast` states the models).

- :class:`IqChain` (iq-split, iq-nosplit): state = the M x N incidence matrix
  of the HOL (residual) sets, lumped by output relabelling (outputs counted
  per column pattern, a vector over the 2**M subsets of inputs) and input
  relabelling (minimum over the input orders sorted by an invariant
  signature, twins not permuted). Fresh sets are dealt into the column
  classes with multivariate hypergeometric weights, split choices with
  multinomial ones; the no-split random order is a random sequential greedy
  independent set of the conflict graph (a recursion).
- :class:`OqChain` (oq-crosspoint): state = every input's HOL set plus the
  packets in the crossbar in crossing order (slot ties kept), each with a code
  per output (not a destination / copy sent, credit held / copy waiting);
  credits, output queues and ties follow. Lumped by output and input relabelling.

:func:`solve_chain` builds a chain by breadth-first search from an empty
switch and solves it (:mod:`.markov`: floating point, and exactly in
fractions for small chains with a rational fanout law).

Examples
--------
>>> load, exact, states, classes = solve_chain(IqChain(2, 2, [0, 1, 0], split=True))
>>> load, states                     # 2 inputs, 2 outputs, one destination each: Karol's 2 x 2, 3/4
(0.75, 2)
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache

from .markov import closed_class_rate, rational_stationary_rate

__all__ = ["IqChain", "OqChain", "solve_chain", "RATIONAL_STATES", "STATE_CAP"]

RATIONAL_STATES = 60     # exact rationals by Fraction elimination up to here (~0.1 s)
STATE_CAP = 200_000      # safety net: a chain this large is abandoned, not solved


def solve_chain(chain):
    """Build the chain by BFS and return (load, rational or None, states, closed classes)."""
    built = _build(chain, float)
    if built is None:
        return None
    states, rows, rates, start = built
    load, classes, same = closed_class_rate(rows, rates, start)
    rational = None
    if chain.rational_ok and len(states) <= RATIONAL_STATES and classes == 1:
        exact_rows = _build(chain, Fraction)
        value = rational_stationary_rate(*exact_rows[1:3]) / chain.m
        load, rational = float(value), str(value)
    else:
        load /= chain.m
    return load, rational, len(states), (classes, same)


def _build(chain, numeric):
    chain.numeric = numeric
    chain.reset()
    start = {}
    for s, p in chain.initial().items():
        start[s] = start.get(s, 0) + p
    index = {s: i for i, s in enumerate(start)}
    order = list(start)
    rows, rates = [], []
    i = 0
    while i < len(order):
        nxt, rate = chain.step(order[i])
        row = {}
        for t, p in nxt.items():
            j = index.get(t)
            if j is None:
                j = index[t] = len(order)
                order.append(t)
            row[j] = row.get(j, 0) + p
        rows.append(row)
        rates.append(rate)
        i += 1
        if len(order) > STATE_CAP:
            return None
    start_vec = {index[s]: p for s, p in start.items()}
    return order, rows, rates, start_vec


def _arrangements(classes):
    """Orders of the rows of ``classes`` up to swaps inside a class (multiset permutations)."""
    if len(classes) == 1:
        yield tuple(classes[0])
        return
    counts = [len(c) for c in classes]
    total = sum(counts)

    def rec(prefix):
        if len(prefix) == total:
            yield prefix
            return
        for k in range(len(classes)):
            if counts[k]:
                counts[k] -= 1
                yield from rec(prefix + (k,))
                counts[k] += 1

    for labels in rec(()):
        taken = [0] * len(classes)
        order = []
        for k in labels:
            order.append(classes[k][taken[k]])
            taken[k] += 1
        yield tuple(order)


@lru_cache(maxsize=None)
def _compositions(total: int, parts: int) -> tuple[tuple[int, ...], ...]:
    if parts == 1:
        return ((total,),)
    return tuple((j,) + rest for j in range(total + 1)
                 for rest in _compositions(total - j, parts - 1))


def _multinomial_outcomes(total: int, parts: int, numeric):
    """Each split of ``total`` outputs over ``parts`` equally likely choices, with its probability."""
    return [(js, numeric(math.factorial(total) // math.prod(math.factorial(j) for j in js))
             / parts ** total) for js in _compositions(total, parts)]


def _deal(classes, k, n, numeric):
    """Uniform k-subset of n outputs split over classes of sizes ``classes``.

    Yields (taken per class, probability): multivariate hypergeometric.
    """
    total = math.comb(n, k)
    sizes = [c for _, c in classes]
    rest = [sum(sizes[i:]) for i in range(len(sizes) + 1)]

    def rec(i, left):
        if i == len(sizes):
            yield ()
            return
        for j in range(max(0, left - rest[i + 1]), min(sizes[i], left) + 1):
            for tail in rec(i + 1, left - j):
                yield (j,) + tail

    for js in rec(0, k):
        ways = math.prod(math.comb(c, j) for c, j in zip(sizes, js))
        yield js, numeric(ways) / total


class IqChain:
    """Saturated FIFO input queues: state = outputs per column pattern (a 2**M vector)."""

    def __init__(self, m, n, pmf, split):
        self.m, self.n, self.split = m, n, split
        self.pmf_raw = pmf
        self.rational_ok = all(isinstance(x, Fraction) for x in pmf)
        self.pop = [bin(p).count("1") for p in range(1 << m)]
        self._tables = {}

    def reset(self):
        self.pmf = [self.numeric(x) for x in self.pmf_raw]
        self._fresh = {}
        self._outcomes = {}
        self._canon = {}

    def initial(self):
        start = tuple([self.n] + [0] * ((1 << self.m) - 1))
        return self._canon_dist(self._add_rows(start, range(self.m)))

    def _table(self, order):
        # order[j] = old row placed at new position j
        t = self._tables.get(order)
        if t is None:
            new_pos = [0] * self.m
            for j, r in enumerate(order):
                new_pos[r] = j
            t = [sum(1 << new_pos[r] for r in range(self.m) if p >> r & 1)
                 for p in range(1 << self.m)]
            self._tables[order] = t
        return t

    def canon(self, counts):
        got = self._canon.get(counts)
        if got is None:
            got = self._canon[counts] = self._canonical(counts)
        return got

    def _canonical(self, counts):
        m = self.m
        nz = [(p, c) for p, c in enumerate(counts) if c]
        # A row's signature (sizes and counts of the patterns it belongs to) survives
        # relabelling, so rows are sorted by it and permuted only within ties; within a tie,
        # "twins" (rows whose swap leaves the state unchanged) need not be permuted at all.
        sig = [tuple(sorted((self.pop[p], c) for p, c in nz if p >> r & 1)) for r in range(m)]
        rows = sorted(range(m), key=sig.__getitem__)
        groups = []
        for _, g in itertools.groupby(rows, key=sig.__getitem__):
            classes = []
            for r in g:
                for cls in classes:
                    if self._twins(counts, nz, cls[0], r):
                        cls.append(r)
                        break
                else:
                    classes.append([r])
            groups.append(classes)
        best = None
        for choice in itertools.product(*(_arrangements(g) for g in groups)):
            t = self._table(tuple(r for g in choice for r in g))
            new = [0] * len(counts)
            for p, c in nz:
                new[t[p]] = c
            new = tuple(new)
            if best is None or new < best:
                best = new
        return best

    @staticmethod
    def _twins(counts, nz, r, s):
        swap = (1 << r) | (1 << s)
        return all(counts[p ^ swap] == c for p, c in nz if (p >> r & 1) != (p >> s & 1))

    def _canon_dist(self, dist):
        out = {}
        for s, p in dist.items():
            c = self.canon(s)
            out[c] = out.get(c, 0) + p
        return out

    def _add_row(self, counts, r):
        key = (counts, r)
        got = self._fresh.get(key)
        if got is not None:
            return got
        classes = [(p, c) for p, c in enumerate(counts) if c]
        out = {}
        for k, pk in enumerate(self.pmf):
            if not pk:
                continue
            for js, w in _deal(classes, k, self.n, self.numeric):
                new = list(counts)
                for (p, _), j in zip(classes, js):
                    if j:
                        new[p] -= j
                        new[p | 1 << r] += j
                t = tuple(new)
                out[t] = out.get(t, 0) + pk * w
        self._fresh[key] = out
        return out

    def _add_rows(self, counts, rows):
        dist = {counts: self.numeric(1)}
        for r in rows:
            nxt = {}
            for c, p in dist.items():
                for c2, p2 in self._add_row(c, r).items():
                    nxt[c2] = nxt.get(c2, 0) + p * p2
            dist = nxt
        return dist

    def step(self, counts):
        return self._step_split(counts) if self.split else self._step_nosplit(counts)

    def _step_nosplit(self, counts):
        m = self.m
        conflict = [0] * m
        for p, c in enumerate(counts):
            if c:
                for r in range(m):
                    if p >> r & 1:
                        conflict[r] |= p & ~(1 << r)
        memo = {}
        one = self.numeric(1)

        def greedy(cand):
            # Random order = repeatedly pick a uniformly random input among those still
            # able to go (inputs blocked by an earlier winner never matter again).
            if cand == 0:
                return {0: one}
            if cand in memo:
                return memo[cand]
            rows = [r for r in range(m) if cand >> r & 1]
            out = {}
            for r in rows:
                for s, p in greedy(cand & ~(1 << r) & ~conflict[r]).items():
                    out[s | 1 << r] = out.get(s | 1 << r, 0) + p / len(rows)
            memo[cand] = out
            return out

        nxt, rate = {}, 0
        for served, p in greedy((1 << m) - 1).items():
            rows = [r for r in range(m) if served >> r & 1]
            rate += p * len(rows)
            cleared = [0] * len(counts)
            for pat, c in enumerate(counts):
                if c:
                    cleared[pat & ~served] += c
            for t, p2 in self._add_rows(tuple(cleared), rows).items():
                t = self.canon(t)
                nxt[t] = nxt.get(t, 0) + p * p2
        return nxt, rate

    def _step_split(self, counts):
        m = self.m
        dist = {tuple([0] * len(counts)): self.numeric(1)}
        for pat, c in enumerate(counts):
            if not c:
                continue
            if pat == 0:  # outputs no HOL packet needs stay idle
                dist = {tuple(v + c if i == 0 else v for i, v in enumerate(d)): p
                        for d, p in dist.items()}
                continue
            rows = [r for r in range(m) if pat >> r & 1]
            key = (c, len(rows))
            outcomes = self._outcomes.get(key)
            if outcomes is None:
                outcomes = self._outcomes[key] = _multinomial_outcomes(c, len(rows), self.numeric)
            nxt = {}
            for d, p in dist.items():
                for js, w in outcomes:
                    new = list(d)
                    for r, j in zip(rows, js):
                        new[pat & ~(1 << r)] += j  # the j outputs that picked row r drop it
                    t = tuple(new)
                    nxt[t] = nxt.get(t, 0) + p * w
            dist = nxt
        out, rate = {}, 0
        for d, p in dist.items():
            alive = 0
            for pat, c in enumerate(d):
                if c:
                    alive |= pat
            done = [r for r in range(m) if not alive >> r & 1]
            rate += p * len(done)
            for t, p2 in self._add_rows(d, done).items():
                t = self.canon(t)
                out[t] = out.get(t, 0) + p * p2
        return out, rate


# Output codes of a packet in the crossbar.
_NOT_DEST, _SENT, _WAITING = 0, 1, 2


class OqChain:
    """Saturated crosspoint-buffered output queuing with coupled multicast credits.

    State: (packets, columns). ``packets`` lists (batch, input) in crossing
    order, batch 0 the oldest (one batch per crossing slot, renumbered
    densely). ``columns`` is the sorted multiset of output signatures
    ``(hol_mask, code_0, code_1, ...)``: which inputs' HOL packets want the
    output, and each packet's code there.
    """

    def __init__(self, m, n, pmf, q, cut_through):
        self.m, self.n, self.q, self.cut_through = m, n, q, cut_through
        self.pmf_raw = pmf
        self.rational_ok = all(isinstance(x, Fraction) for x in pmf)
        self.perms = list(itertools.permutations(range(m)))

    def reset(self):
        self.pmf = [self.numeric(x) for x in self.pmf_raw]
        self._fresh = {}
        self._outcomes = {}

    def initial(self):
        self._canon = {}
        dist = {(((0,), self.n),): self.numeric(1)}
        for i in range(self.m):
            dist = self._add_hol(dist, i)
        return self._canon_dist((), dist)

    def canon(self, packets, columns):
        key = (packets, columns)
        got = self._canon.get(key)
        if got is None:
            got = self._canon[key] = self._canonical(packets, columns)
        return got

    def _canonical(self, packets, columns):
        best = None
        for perm in self.perms:
            order = sorted(range(len(packets)), key=lambda x: (packets[x][0], perm[packets[x][1]]))
            new_packets = tuple((packets[x][0], perm[packets[x][1]]) for x in order)
            cols = {}
            for sig, c in columns:
                mask = sum(1 << perm[i] for i in range(self.m) if sig[0] >> i & 1)
                s = (mask,) + tuple(sig[1 + x] for x in order)
                cols[s] = cols.get(s, 0) + c
            key = (new_packets, tuple(sorted(cols.items())))
            if best is None or key < best:
                best = key
        return best

    def _canon_dist(self, packets, dist):
        out = {}
        for cols, p in dist.items():
            s = self.canon(packets, cols)
            out[s] = out.get(s, 0) + p
        return out

    def _add_hol(self, dist, i):
        """Deal a fresh HOL set for input i into the column classes."""
        out = {}
        for cols, p in dist.items():
            got = self._fresh.get((cols, i))
            if got is None:
                got = {}
                for k, pk in enumerate(self.pmf):
                    if not pk:
                        continue
                    for js, w in _deal(cols, k, self.n, self.numeric):
                        new = {}
                        for (sig, c), j in zip(cols, js):
                            if c - j:
                                new[sig] = new.get(sig, 0) + c - j
                            if j:
                                s2 = (sig[0] | 1 << i,) + sig[1:]
                                new[s2] = new.get(s2, 0) + j
                        t = tuple(sorted(new.items()))
                        got[t] = got.get(t, 0) + pk * w
                self._fresh[(cols, i)] = got
            for t, p2 in got.items():
                out[t] = out.get(t, 0) + p * p2
        return out

    def step(self, state):
        packets, columns = state
        m, q = self.m, self.q
        held = len(packets)
        # 1. A HOL packet crosses if every destination crosspoint of its input has a credit:
        #    fewer than Q packets of that input in the crossbar still hold one there.
        movers = []
        for i in range(m):
            mine = [x for x in range(held) if packets[x][1] == i]
            if all(sum(1 for x in mine if sig[1 + x]) < q for sig, _ in columns if sig[0] >> i & 1):
                movers.append(i)
        batch = packets[-1][0] + 1 if packets else 0
        now = packets + tuple((batch, i) for i in movers)
        moved = sum(1 << i for i in movers)
        # 2. Each output sends its oldest waiting copy; a tie (same crossing slot) is broken
        #    uniformly and independently per output, so a class of c equal outputs splits
        #    multinomially over the tied packets.
        per_class = []
        for sig, c in columns:
            codes = list(sig[1:]) + [_WAITING if sig[0] >> i & 1 else _NOT_DEST for i in movers]
            mask = sig[0] & ~moved
            waiting = [x for x in range(len(now))
                       if codes[x] == _WAITING and (self.cut_through or x < held)]
            if not waiting:
                per_class.append([((((mask,) + tuple(codes), c),), None)])
                continue
            oldest = min(now[x][0] for x in waiting)
            tied = [x for x in waiting if now[x][0] == oldest]
            key = (c, len(tied))
            outcomes = self._outcomes.get(key)
            if outcomes is None:
                outcomes = self._outcomes[key] = _multinomial_outcomes(c, len(tied), self.numeric)
            options = []
            for js, w in outcomes:
                parts = []
                for x, j in zip(tied, js):
                    if j:
                        sent = list(codes)
                        sent[x] = _SENT
                        parts.append(((mask,) + tuple(sent), j))
                options.append((tuple(parts), w))
            per_class.append(options)
        dist = {(): self.numeric(1)}
        for options in per_class:
            if options[0][1] is None:  # no copy waiting here: nothing random
                parts = options[0][0]
                dist = {d + parts: p for d, p in dist.items()}
                continue
            nxt = {}
            for d, p in dist.items():
                for parts, w in options:
                    t = d + parts
                    nxt[t] = nxt.get(t, 0) + p * w
            dist = nxt
        # 3. Packets with no copy left return all their credits (usable next slot);
        # 4. inputs whose packet crossed get a fresh HOL packet.
        out, rate = {}, 0
        for d, p in dist.items():
            cols = {}
            for sig, c in d:
                cols[sig] = cols.get(sig, 0) + c
            alive = [x for x in range(len(now)) if any(s[1 + x] == _WAITING for s in cols)]
            rate += p * (len(now) - len(alive))
            batches = {b: r for r, b in enumerate(sorted({now[x][0] for x in alive}))}
            kept = tuple((batches[now[x][0]], now[x][1]) for x in alive)
            slim = {}
            for sig, c in cols.items():
                s = (sig[0],) + tuple(sig[1 + x] for x in alive)
                slim[s] = slim.get(s, 0) + c
            fresh = {tuple(sorted(slim.items())): self.numeric(1)}
            for i in movers:
                fresh = self._add_hol(fresh, i)
            for t, p2 in self._canon_dist(kept, fresh).items():
                out[t] = out.get(t, 0) + p * p2
        return out, rate


# ---------------------------------------------------------------- large-N iq-split
