"""The Python verbs of the front door: a switch by architecture name, a simulation of any declared system.

Both need the declarations (:mod:`switchq.architectures`, read through :mod:`switchq.registry`), so they
live here and not in the layers the declarations are built on: a model knows nothing of the architectures
declared over it, and the harness runs whatever declaration it is handed.
"""

from __future__ import annotations

import dataclasses

from .errors import InputError
from .models.switch import DEFAULT_ARCHITECTURE
from .registry import declarations, for_system, switch_class

__all__ = ["Switch", "simulate"]


def Switch(n_ports, architecture: str = DEFAULT_ARCHITECTURE, **options):  # noqa: N802 (a constructor by architecture name)
    """The configuration of an ``n_ports`` x ``n_ports`` switch of ``architecture``, validated.

    An option that belongs to another architecture is refused, unless it is at that architecture's
    neutral default (``window=1`` on any switch). ``options`` are the architecture's fields (``window``, ``matching``,
    ``flow_control``, ...; see its class). The architectures are those
    declared in :mod:`switchq.architectures`.

    Examples
    --------
    >>> Switch(n_ports=8, architecture="voq", matching="islip", iterations=2).iterations
    2
    >>> Switch(8).architecture, Switch(8, "oq", window=1).architecture
    ('fifo', 'oq')
    >>> Switch(n_ports=0)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: n_ports: got 0; allowed: an integer in [1, 1024]
    >>> Switch(4, "voq", window=2)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: window: got 2; allowed: 1 unless architecture is fifo
    """
    if not isinstance(architecture, str):
        raise InputError("architecture", architecture, "a name, e.g. fifo")
    _, cls = switch_class(architecture)
    fields = {f.name for f in dataclasses.fields(cls) if f.init}
    foreign = {k: v for k, v in options.items() if k not in fields}
    for name, value in foreign.items():
        owners = [(a, f.default) for d in declarations().values() if d.family == "switch" for c in d.config
                  for f in dataclasses.fields(c) if f.name == name and f.init for a in d.architectures[:1]]
        if not owners:
            raise TypeError(f"Switch() got an unexpected option {name!r}")
        neutral = owners[0][1]
        if value != neutral:
            raise InputError(name, value, f"{neutral} unless architecture is " + " or ".join(a for a, _ in owners))
    kwargs = {k: v for k, v in options.items() if k in fields}
    if "architecture" in fields:
        kwargs["architecture"] = architecture
    return cls(n_ports, **kwargs)


def simulate(system, workload=None, settings=None, progress: bool = False):
    """Simulate ``system`` (a switch, network or collective) under ``workload``; figures with 95 % intervals.

    The system's declaration (found by its type among the declarations) checks the pair, names the kernel
    and says what to measure; ``settings`` is a :class:`~switchq.validate.harness.RunSettings` (its
    defaults if None); the answer a :class:`~switchq.validate.result.Result`.

    Examples
    --------
    >>> from switchq.models import Traffic
    >>> from switchq.validate.harness import RunSettings
    >>> r = simulate(Switch(n_ports=4, architecture="oq"), Traffic(load=0.5),
    ...              RunSettings(slots=2000, replications=2, seed=7))
    >>> 0.4 < r.throughput.value < 0.6, r.arrived == r.delivered + r.queued + 0
    (True, True)
    """
    from .validate.harness import RunSettings, run   # here: building a switch by name imports no NumPy

    return run(for_system(system, workload), system, workload, settings or RunSettings(), progress)
