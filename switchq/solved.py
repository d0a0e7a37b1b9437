"""A declaration's reference to a solver function, and to one value it computes.

A declaration names the solver it answers with as ``Solver("oq.mean_wait")`` (the function ``mean_wait`` of
:mod:`switchq.solvers.oq`) instead of wrapping it in a closure: the module is imported at the first call, so
listing the declarations (``switchq --help``, ``switchq solve hol``) imports no solver and no NumPy.
``solved("oq.mean_wait", 16, 0.9)`` is a :class:`~switchq.declaration.Case`'s analytic side: the solver called
with those arguments, the value its result declares as main figure (:mod:`switchq.solvers.figures`) or the one
named, with the result's own method text. An argument that costs to build (a network's routing tables), or
that needs the declaration it is part of, is given as ``later(build, *args)`` and built when the value is
asked for.

>>> Solver("hol.saturation_throughput")(4).saturation_throughput    # 325/496 exactly
0.655241935483871
>>> solved("oq.mean_wait", 16, 0.5)()
(0.46875, 'W = (N - 1)/N * p / (2 (1 - p))')
"""

from __future__ import annotations

import functools
import importlib
import inspect
from dataclasses import dataclass
from typing import Callable

__all__ = ["Solver", "Solved", "solved", "Later", "later"]


@dataclass(frozen=True)
class Solver:
    """The function ``path`` (``"module.function"``) of :mod:`switchq.solvers`, imported when first called.

    Attributes
    ----------
    path : str
        ``"oq.mean_wait"``: module under ``switchq.solvers``, then the function.
    """

    path: str

    @property
    def module(self) -> str:
        """The solver's module, ``switchq.solvers.oq``."""
        return "switchq.solvers." + self.path.rpartition(".")[0]

    @functools.cached_property
    def function(self):
        """The solver function itself (imports its module, once)."""
        return getattr(importlib.import_module(self.module), self.path.rpartition(".")[2])

    @functools.cached_property
    def takes(self) -> frozenset:
        """The names of the function's parameters (read once: an answer's sweep calls it at every point)."""
        return frozenset(inspect.signature(self.function).parameters)

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)


@dataclass(frozen=True)
class Later:
    """An argument of a :class:`Solved` built at its call: ``build(*args)``."""

    build: Callable
    args: tuple = ()


def later(build: Callable, *args) -> Later:
    """``build(*args)``, when the value that takes it is asked for."""
    return Later(build, args)


def _built(x):
    return x.build(*map(_built, x.args)) if isinstance(x, Later) else x


@dataclass(frozen=True)
class Solved:
    """One analytic value: ``solver(*args, **kwargs)``, its figure ``figure`` (default: the result's main one;
    a solver returning a plain number, or a ``(value, method)`` pair, gives it) times ``scale`` (a change of unit), and where it comes from
    (``method``, default: the result's own; ``{}`` in it stands for the result's own). Called, it gives
    ``(value, method)``, as a Case's ``analytic``."""

    solver: Solver
    args: tuple = ()
    kwargs: tuple = ()
    figure: str = ""
    scale: float = 1.0
    method: str = ""

    def __call__(self) -> tuple:
        from switchq.solvers.figures import main_of, method_of

        result = self.solver(*map(_built, self.args), **{k: _built(v) for k, v in self.kwargs})
        if isinstance(result, tuple):       # (value, how), as pfc.credit_throughput gives
            value, how = result
            return value * self.scale, (self.method or "{}").format(how)
        if isinstance(result, (int, float)):
            if not self.method:
                raise TypeError(f"{self.solver.path} returns a number: its Case must say the method")
            return result * self.scale, self.method
        value = getattr(result, self.figure or main_of(result))
        return value * self.scale, (self.method or "{}").format(method_of(result))


def solved(path: str, *args, figure: str = "", scale: float = 1.0, method: str = "", **kwargs) -> Solved:
    """``Solved(Solver(path), args, kwargs, ...)``: the analytic side of a validation row, by its solver."""
    return Solved(Solver(path), args, tuple(kwargs.items()), figure, scale, method)
