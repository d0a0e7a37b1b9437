"""Report ``mediaworm``'s Table V (paper 004 §V-C): best-effort latency against the paper's, under every
best-effort reading, the orders the paper states, and why its points at 0.9 and 0.96 are unstable here under every
reading (what best effort alone can carry on this router, against what the points offer). Mixed into the report's
pass with :class:`~.mediaworm_tables._Tables`, whose verdict methods it uses.
"""

from __future__ import annotations

import math

from switchq.solvers.wormhole_contention import TABLE_V, TABLE_V_LOADS

from . import est
from .claims import AGREE, at_least, at_most, cell, sampled, shown, within
from .mediaworm_quotes import SAYS, table_v_row
from .mediaworm_tables import LATE, MIXES, REL, P, _be

__all__ = ["BE_ALONE", "BE_ALONE_LOADS"]

# Best effort alone, the router as the paper's and with one thing changed, at loads around its saturation: its
# capacity against what Table V's points at 0.9 and 0.96 offer (20:80 leaves best effort 13 of the 16 VCs, 50:50 8).
BE_ALONE_LOADS = (0.83, 0.86, 0.88, 0.9, 0.91, 0.92, 0.94, 0.95)
BE_ALONE = {"as the paper's (16 VCs)": ((0.9, 0.91, 0.92), {}),
            "full crossbar": ((0.92, 0.94, 0.95), {"crossbar": "full"}),
            "4-message VC buffers": ((0.91, 0.92), {"buffer_messages": 4}),
            "13 VCs": ((0.86, 0.88, 0.9), {"vcs": 13}),
            "8 VCs": ((0.83, 0.86, 0.88), {"vcs": 8})}


class _TableV:
    """Table V's section; ``self`` is the report's pass (its ``run``, ``lines``, ``loads``, ``quick``,
    ``be_readings``, and :class:`~.mediaworm_tables._Tables`' verdict methods)."""

    def _table_v(self, curves):
        run = self.run
        loads = [x for x in TABLE_V_LOADS if x in self.loads]
        others = {n: {f"{x}:{y}": run.curve(loads, **P(mix=(x, y), **o)) for x, y in MIXES}
                  for n, o in self.be_readings if n != "default"}
        self.lines += ["", "### Table V: best-effort latency (us)", "",
                       f"A number's band is the paper's ± {REL:.0%}, judged on our latency's interval: where our "
                       "point is unstable (the harness's backlog rule) its latency is no steady state's and the "
                       "engine refuses it agreement with the paper's finite one. 'Sat.' is a claim about overload, "
                       f"judged on the carried share (delivered over offered, replication by replication): at most "
                       f"{1 - LATE:g} (the backlog rule's 1 %). Analytic: M/G/1 preemptive priority per link, and "
                       "the chance that the stated uniform placement leaves some output with video (on the wire) plus "
                       "best effort above its link, where best effort has no finite latency (`switchq solve "
                       "wormhole`'s p_best_effort_saturated: a chance, not a rule of the paper, so no verdict rests on "
                       "it). Beside the default, best effort under the other readings of "
                       "§IV-B.2 and §III-D (crossbar outputs by arrival: `--crossbar-output fifo`; VCs drawn: "
                       "`--best-effort-vcs drawn`; stamps growing by the largest Vtick: `--best-effort-stamp vclock`) "
                       "and of §IV-B.3 (no node receiving more streams than a node sends, nor a VC more than an "
                       "input VC carries: `--placement capped`, alone and with `--header payload`), each judged alike "
                       "and judged first: the default's verdict is given theirs.",
                       "", "| mix | load | paper | ours | ours / paper | analytic | P(best effort saturated) | "
                       "verdict |" + "".join(f" {o} |" for o in others),
                       "|---|---:|---:|---:|---:|---:|---:|---|" + "---|" * len(others)]
        ratios, errors, fitted = [], [], []
        for (x, y), paper in TABLE_V.items():
            m = f"{x}:{y}"
            for load, target in zip(TABLE_V_LOADS, paper):
                if load not in loads:
                    continue
                th = run.theory(**P(mix=(x, y), load=load))
                rest = [(rows[m][load], self._be_cell(m, load, target, rows[m][load], name))
                        for name, rows in others.items()]
                row = curves[m][load]
                v = self._be_cell(m, load, target, row, "default")
                if load <= 0.7 and v is not None:
                    fitted.append(v)
                e, unstable = est(row, "best_effort_latency_us"), bool(row.get("unstable"))
                if v is not None and target is not None:
                    e = v                         # the interval the verdict was judged on
                a = th.get("best_effort_latency_us", math.nan)
                ratio = "—" if target is None or unstable else f"{e.value / target:.2f}"
                if target is not None and not unstable:
                    ratios.append(e.value / target)
                if (load <= 0.8 and not unstable and math.isfinite(a) and math.isfinite(e.value)
                        and e.value > 0):
                    errors.append(shown(a, 1) / shown(e.value, 1))
                sat = th.get("p_best_effort_saturated")
                sat = "—" if sat is None else f"{sat:.3f}"
                self.lines.append(f"| {m} | {load:g} | {'Sat.' if target is None else target} | {_be(row, v)} | "
                                  f"{ratio} | {a:.1f} | {sat} | {'—' if v is None else cell(v)} |"
                                  + "".join(f" {_be(r, w)}: {w or '—'} |" for r, w in rest))
        fin = [r for r in ratios if math.isfinite(r)]
        self.lines += ["", (f"Ours over the paper's, where our point is stable: {min(fin):.2f}-{max(fin):.2f}. "
                            if fin else "")
                       + (f"The analytic approximation over ours at stable points up to load 0.8: "
                          f"{min(errors):.2f}-{max(errors):.2f}." if errors else ""), ""]
        if fitted:
            self.lines += ["The best-effort defaults (free VCs, the largest stamp) are the most literal readings of "
                           "§IV-B.2's 'available VCs' and §III-D's 'the largest possible value' (the readings table); "
                           f"at 0.6-0.7 the default gives {sum(v == AGREE for v in fitted)} of {len(fitted)} cells "
                           "here, each of the others is judged beside it.", ""]
        names = [n for n, _ in self.be_readings]
        self.lines += ["Table V's latencies judged under each best-effort reading:", ""]
        self.lines += self._reading_table(self._reading_counts(names, ("Table V",)))
        # Orders: the paired difference of the ends of the stable run (a saturated point's latency is no figure).
        metric = "best_effort_latency_us"
        for x, y in MIXES:
            m = f"{x}:{y}"
            stable = [ld for ld in loads if not curves[m][ld].get("unstable")]
            if len(stable) > 1:
                self.cmp("Table V", f"for a given mix the latency grows with load ({m}: {stable[-1]:g} against "
                         f"{stable[0]:g})", curves[m][stable[-1]], curves[m][stable[0]], at_least, 0.0, metric=metric,
                         digits=1, quote=SAYS["table5 load"])
        for ld in loads:
            stable = [f"{x}:{y}" for x, y in MIXES if not curves[f"{x}:{y}"][ld].get("unstable")]
            if len(stable) > 1:
                self.cmp("Table V", f"more real-time traffic, higher best-effort latency at a given load ({ld:g}: "
                         f"{stable[-1]} against {stable[0]})", curves[stable[-1]][ld], curves[stable[0]][ld],
                         at_least, 0.0, metric=metric, digits=1, quote=SAYS["table5 mix"])
        if not self.quick:
            self._table_v_unstable(loads)

    def _table_v_unstable(self, loads):
        """Beside Table V's points at 0.9 and 0.96, unstable here under every reading run (issue 36): what best
        effort alone carries on this router, and what each point offers an input's link."""
        run = self.run
        alone = {name: run.curve(grid, **P(mix="0,100", **o)) for name, (grid, o) in BE_ALONE.items()}
        self.lines += ["", "#### What best effort alone carries, beside Table V's points at 0.9 and 0.96", "",
                       "Best effort alone (`--mix 0,100`) on this router, as the paper's and with one thing changed, "
                       "at loads around its saturation: stable or not (the harness's backlog and latency-trend "
                       "rules), with its latency (us):", "",
                       "| router | " + " | ".join(f"load {x:g}" for x in BE_ALONE_LOADS) + " |",
                       "|---|" + "---|" * len(BE_ALONE_LOADS)]
        for name, curve in alone.items():
            self.lines.append(f"| {name} | " + " | ".join(_be(curve[x]) if x in curve else "" for x in BE_ALONE_LOADS)
                              + " |")
        said = []
        for m in MIXES[:2]:                 # the mixes whose best effort the paper gives finite at 0.9 and 0.96
            vcs = 16 - run.theory(**P(mix=m, load=0.9)).get("realtime_vcs", 0)
            curve = alone.get(f"{vcs} VCs", {})
            top = max([x for x in curve if not curve[x].get("unstable")], default=None)
            over = min([x for x in curve if curve[x].get("unstable")], default=None)
            for x in (x for x in loads if x >= 0.9):
                w = run.theory(**P(mix=m, load=x)).get("reserved_input_load", math.nan) + x * m[1] / sum(m)
                if over is not None and w >= over:
                    where = f"at or above the {over:g} at which best effort alone on its {vcs} VCs is unstable"
                elif top is not None and w <= top:
                    where = f"at or below the {top:g} that best effort alone on its {vcs} VCs carries stably"
                else:
                    where = (f"between the {top} best effort alone on its {vcs} VCs carries stably and the {over} at "
                             "which it does not")
                said.append(f"{m[0]}:{m[1]} at {x:g} offers {w:.4f}, {where}")
        base, deep = alone["as the paper's (16 VCs)"], alone["4-message VC buffers"]
        same = [x for x in deep if x in base and _be(deep[x]) == _be(base[x])]
        self.lines += ["", "What a point offers an input's link is its video on the wire (header flits included: "
                       "`switchq solve wormhole`'s reserved_input_load) plus its best effort: " + "; ".join(said)
                       + ". Best effort alone on as many VCs is a comparison, not a bound: in the mixed router video "
                       "has VCs of its own and goes first. Four-message VC buffers "
                       + (f"give the same figures as one-message ones at {', '.join(f'{x:g}' for x in same)}: a VC "
                          "holds one message from its header to its tail, and a message fits in one message's buffer."
                          if same and len(same) == len(deep) else "change the figures (the rows above)."), ""]

    def _be_cell(self, m, load, target, row, reading):
        """One Table V cell's verdict under one reading (None while collecting). A finite latency is judged on the
        latency itself, so an unstable run cannot agree with it; 'Sat.' on the carried share, as a claim about the
        system under overload."""
        says = f"{m} at {load:g}: {'Sat.' if target is None else f'{target} us'}"
        kw = dict(reading=reading, quote=table_v_row(m), show=lambda v: _be(row, v))
        if target is not None:
            return self.judge("Table V", says, f"± {REL:.0%}", within, est(row, "best_effort_latency_us"), target,
                              REL * target, **kw)
        if self.run.collecting:
            return None
        share = sampled(row, lambda t, a: t / a, "throughput", "applied_load", domain=(0.0, None))
        return self.judge("Table V", says, f"carried share ≤ {1 - LATE:g}", at_most, share, 1 - LATE,
                          saturated=True, **kw)

