"""An architecture's analytic answers: :class:`Answer` (``switchq solve NAME``, ``switchq sweep NAME``) and the
comparisons of its results with the simulated twin (:class:`Compare`).

An answer names its solver (:class:`~switchq.solved.Solver`); the solver's result says which of its fields are
inputs and which results, with their units and its main figure (:mod:`switchq.solvers.figures`), so an answer
declares only what is its own: its parameters, titles, help, examples and the twin it is checked against.
Part of :mod:`switchq.declaration`, which re-exports both.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Callable

from .solved import Solver
from .solvers.figures import main_of, names_of, split, units_of

__all__ = ["Answer", "Compare", "DEFAULT_PRECISION_SHARE"]

# A validation row's default precision, as a share of its analytic value (Compare, Case).
DEFAULT_PRECISION_SHARE = 0.005


@dataclass(frozen=True)
class Compare:
    """An analytic result of an :class:`Answer` (``result``) and the metric of its simulated twin (``metric``) that
    measures it at the same inputs, judged by the verdict engine as :class:`Case` rows are: a point target with
    ``precision`` (+ ``precision_share`` of the value) when exact, else a band of ``tolerance`` (+
    ``tolerance_share``, + the answer's own stated error in result ``error_result``). The page shows each beside
    the answer, with the verdict.

    Attributes
    ----------
    result : str
        The answer's result (a key of what ``solve`` returns). Required.
    metric : str
        The twin's :class:`Metric` that measures it. Required.
    tolerance, tolerance_share : float, default 0.0
        The band of an approximation: absolute (in the result's unit), plus a share of the analytic value. Both 0:
        the result is exact, a point target.
    error_result : str, default ""
        A result of the answer giving its own stated error, added to the band (the circuit answer's error).
    precision, precision_share : float, default 0.0 and DEFAULT_PRECISION_SHARE
        An exact result's precision: the interval's half-width may be at most ``precision`` (absolute) plus
        ``precision_share`` of the value. Give an absolute one for a figure that can be 0 (a loss).
    saturated : bool, default False
        The twin runs overloaded by design (a saturation throughput): compared only where it is overloaded, its
        unstable run being the set-up.
    applies : callable or None, default None
        ``applies(params, results) -> str``: why the comparison does not hold at these inputs (an approximation's
        range, a low-load formula, a bound rather than a value), empty where it does. None: it always holds.
    why : str, default ""
        Where the band (or the exactness) comes from, shown with the verdict.
    """

    result: str
    metric: str
    tolerance: float = 0.0
    tolerance_share: float = 0.0
    error_result: str = ""
    precision: float = 0.0
    precision_share: float = DEFAULT_PRECISION_SHARE
    saturated: bool = False
    applies: Callable | None = None
    why: str = ""


@dataclass(frozen=True)
class Answer:
    """An analytic answer: ``switchq solve NAME`` (or ``switchq size NAME``) and ``switchq sweep NAME``.

    Attributes
    ----------
    name : str
        The command, unique among all answers: ``switchq solve NAME`` and ``switchq sweep NAME``; an answer of
        ``verb`` ``size`` is named ``size-X`` and called as ``switchq size X``. Often the architecture's name.
        Required.
    title : str
        The title of its result table. Required.
    summary : str
        One line: its entry in ``switchq solve --help`` (or ``size --help``) and ``sweep --help``, and its
        ``--help`` when there is no ``description``. Required.
    params : tuple of Param
        Its parameters, in ``--help``'s order: the options of ``solve NAME`` and of ``sweep NAME``. Those with
        ``modes=SIM`` (``sim_only(...)``) feed only the simulated twin (``sweep NAME --simulate``): they are the
        twin's, not the answer's. Required.
    solve : Solver or callable
        The solver: a :class:`~switchq.solved.Solver` (``Solver("hol.saturation_throughput")``) is called with
        the answer's parameters its function takes, each by its keyword (:attr:`Param.target
        <switchq.params.Param.target>`); a function ``solve(params)`` gets every parameter by name (canonical
        values, unset ones at their default, so a size-dependent default, None, is applied here). Either returns
        a solver's result, whose fields say which are echoed inputs and which are results, with their units
        (:mod:`switchq.solvers.figures`), or, for an answer composed of several solvers' figures, the two
        dicts ``(inputs, results)``. It raises a one-line :class:`~switchq.errors.InputError` for what it
        refuses. A function imports its solver inside it, so that listing answers imports no solver. Required.
    returns : tuple of Solver, default ()
        For a ``solve`` function: the solvers whose results it returns, so their figures and units are known
        before a point is solved (``oq``: ``mean_wait`` unbounded, ``finite_buffer`` with a buffer).
    results : tuple of str, default: the result's figures
        The results a sweep lists (``--y`` picks among the numeric ones), when not all of the result's.
    units : dict, default {}
        Units of the inputs and results neither a parameter nor the solver's result declares (an answer that
        returns dicts names them here; '' or absent: text, flags). The conformance tests check every number
        has one (:meth:`units_of`).
    main : str, default: the result's main figure
        The result a sweep plots by default.
    table : tuple of str, default: (main,)
        The results a sweep's table (and several answers side by side) show.
    check : callable or None, default None
        ``check(params)``: a cheap check of a sweep point before any is solved (raises InputError), for an
        answer slow to solve; None: solving is the check.
    twin : callable or None, default None
        ``twin(params) -> params``: the point of this architecture's ``simulate`` that measures the same thing
        (``lambda p: p`` when they share parameters; CIOQ's sets load 1 when none is given), for ``sweep NAME
        --simulate`` and the page's side by side. None: no simulated twin.
    sim_main : str, default "throughput"
        The twin's result a ``sweep NAME --simulate`` plots by default.
    sim_table : tuple of str, default ("throughput", "mean_latency", "loss_probability", "unstable")
        The twin's results its sweep table shows.
    verb : str, default "solve"
        ``solve`` or ``size`` (buffer sizing; ``switchq size credit`` is the answer ``size-credit``).
    description : str, default ""
        Its ``--help``: what it computes, the method and the source. Empty: ``summary``.
    examples : tuple of str, default ()
        ``switchq solve NAME ...`` lines shown by ``--help``; the conformance tests run each.
    vary_example : str, default ""
        What follows ``switchq sweep NAME --vary`` in its help (``load=0.1:0.9:0.1 --ports 16``).
    compares : tuple of Compare, default ()
        The analytic results its simulated twin measures at the same inputs, and how the two are judged side
        by side (the page shows each with the engine's verdict); empty: none is comparable.
    """

    name: str
    title: str
    summary: str
    params: tuple
    solve: Callable
    results: tuple = ()
    units: dict = field(default_factory=dict)
    main: str = ""
    table: tuple = ()
    check: Callable | None = None
    twin: Callable | None = None
    sim_main: str = "throughput"
    sim_table: tuple = ("throughput", "mean_latency", "loss_probability", "unstable")
    verb: str = "solve"
    description: str = ""
    examples: tuple = ()
    vary_example: str = ""
    compares: tuple = ()
    returns: tuple = ()

    @property
    def command(self) -> str:
        """Its name under its verb: ``credit`` for ``size-credit``."""
        return self.name[len(self.verb) + 1:] if self.name.startswith(self.verb + "-") else self.name


    def result_types(self) -> tuple:
        """The classes of the results ``solve`` returns, from its solvers' return annotations (imports them);
        empty for an answer that returns dicts."""
        solvers = (self.solve,) if isinstance(self.solve, Solver) else self.returns
        types = []
        for s in solvers:
            if "return" not in s.function.__annotations__:
                raise TypeError(f"solver {s.path} declares no return type: its answer cannot read its figures")
            returned = s.function.__annotations__["return"]
            if isinstance(returned, str):       # postponed (from __future__ import annotations): the return only
                returned = eval(returned, s.function.__globals__)
            types += [t for t in typing.get_args(returned) or (returned,) if dataclasses.is_dataclass(t)]
        return tuple(types)

    def evaluate(self, params: dict) -> tuple:
        """``(inputs, results)`` at ``params`` (every parameter by name, canonical values)."""
        if isinstance(self.solve, Solver):
            takes = self.solve.takes
            out = self.solve(**{p.target: params[p.name] for p in self.params
                                if p.target in takes and "analytic" in p.modes})
        else:
            out = self.solve(params)
        return out if isinstance(out, tuple) else split(out)

    def units_of(self) -> dict:
        """Unit of every input and result name it gives: its parameters', its results' own, then ``units``."""
        out = {p.target: p.unit for p in self.params if p.unit}
        for t in self.result_types():
            out.update(units_of(t))
        out.update(self.units)
        return {k: v for k, v in out.items() if v}

    def result_names(self) -> tuple:
        """``results``, or every figure its results declare."""
        if self.results:
            return self.results
        names = {}
        for t in self.result_types():
            names.update(dict.fromkeys(names_of(t)[1]))
        return tuple(names)

    def main_result(self) -> str:
        """``main``, or the main figure its (first) result declares."""
        if self.main:
            return self.main
        types = self.result_types()
        if not types:
            raise TypeError(f"answer {self.name} returns dicts: it must name its main result (main=)")
        return main_of(types[0])

    def table_results(self) -> tuple:
        """``table``, or the main result alone."""
        return self.table or (self.main_result(),)
