"""What a solver's result says about itself: its figures' units, its main figure, the inputs it echoes, its method.

A solver returns a frozen dataclass. Its fields are declared with :func:`given` (an input, echoed as the solver
read it) or :func:`figure` (a result), each with its unit, one figure marked ``main=True`` (the one a sweep
plots and a validation row reads unless it names another); a figure computed from others is a field with
``init=False`` set in ``__post_init__``, so it is shown where it is declared. The declarations in :mod:`switchq.architectures` read all of this from the result
(:func:`units_of`, :func:`main_of`, :func:`split`) instead of restating it, so a result's names and units are
written once, beside their meaning.

An empty unit marks text or a flag (a method, a source, ``exact``). This module imports nothing: a declaration
may read it without loading NumPy.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Wait:
...     load: float = given("cells/slot/input")
...     mean_wait: float = figure("slots", main=True)
...     mean_latency: float = figure("slots", init=False)
...     method: str = figure()
...     def __post_init__(self):
...         object.__setattr__(self, "mean_latency", self.mean_wait + 1)
>>> units_of(Wait)
{'load': 'cells/slot/input', 'mean_wait': 'slots', 'mean_latency': 'slots'}
>>> main_of(Wait), method_of(Wait(0.5, 0.5, "M/D/1"))
('mean_wait', 'M/D/1')
>>> names_of(Wait)
(('load',), ('mean_wait', 'mean_latency', 'method'))
>>> split(Wait(0.5, 0.5, "M/D/1"))
({'load': 0.5}, {'mean_wait': 0.5, 'mean_latency': 1.5, 'method': 'M/D/1'})
"""

from __future__ import annotations

import dataclasses

__all__ = ["given", "figure", "units_of", "main_of", "method_of", "split", "names_of"]

_ROLE, _UNIT, _MAIN = "switchq.role", "switchq.unit", "switchq.main"


def given(unit: str = "", **field_options) -> dataclasses.Field:
    """A result field that echoes an input as the solver read it (``n_ports``, ``load``), in ``unit``."""
    return dataclasses.field(metadata={_ROLE: "input", _UNIT: unit}, **field_options)


def figure(unit: str = "", *, main: bool = False, **field_options) -> dataclasses.Field:
    """A result field in ``unit`` (empty: text or a flag); ``main=True`` for the result's main figure.
    ``field_options`` go to :func:`dataclasses.field` (``default=``, ``repr=``)."""
    return dataclasses.field(metadata={_ROLE: "result", _UNIT: unit, _MAIN: main}, **field_options)


def _fields(result) -> list:
    return [f for f in dataclasses.fields(result) if _ROLE in f.metadata]


def units_of(result) -> dict:
    """Unit of every input and figure of a result class (or instance) that has one."""
    return {f.name: f.metadata[_UNIT] for f in _fields(result) if f.metadata[_UNIT]}


def main_of(result) -> str:
    """The name of the result's main figure."""
    mains = [f.name for f in _fields(result) if f.metadata.get(_MAIN)]
    if len(mains) != 1:
        raise TypeError(f"{getattr(result, '__name__', type(result).__name__)} declares {len(mains)} main figures, "
                        "not one")
    return mains[0]


def method_of(result) -> str:
    """Where the result comes from: its ``method`` text, else its ``formula``, else its ``source``."""
    for name in ("method", "formula", "source"):
        if text := getattr(result, name, None):
            return text
    raise TypeError(f"{type(result).__name__} says neither its method, formula nor source")


def names_of(result) -> tuple:
    """``(inputs, figures)``: the names of a result class's (or instance's) echoed inputs and of its figures,
    in declaration order."""
    fields = _fields(result)
    return (tuple(f.name for f in fields if f.metadata[_ROLE] == "input"),
            tuple(f.name for f in fields if f.metadata[_ROLE] == "result"))


def split(result) -> tuple:
    """``(inputs, results)``: the result's echoed inputs and its figures, by name, in declaration order."""
    inputs, results = {}, {}
    for f in _fields(result):
        (inputs if f.metadata[_ROLE] == "input" else results)[f.name] = getattr(result, f.name)
    return inputs, results
