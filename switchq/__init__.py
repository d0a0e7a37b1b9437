"""switchq: switch and router architecture questions answered in milliseconds.

Analytic answers live in :mod:`switchq.solvers`, model descriptions in
:mod:`switchq.models`, and the Numba simulator that checks them in
:mod:`switchq.validate` (imported lazily: ``import switchq`` compiles nothing).

Examples
--------
>>> import switchq
>>> round(switchq.solvers.hol.saturation_throughput(8).saturation_throughput, 4)
0.6184
"""

from importlib.metadata import PackageNotFoundError, version

import importlib

from . import models
from .errors import InputError
from .models import Switch, Traffic

try:
    __version__ = version("switchq")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+local"

__all__ = ["models", "solvers", "validate", "simulate", "RunSettings", "sweep", "Switch", "Traffic", "InputError",
           "__version__"]


def __getattr__(name):
    # Solvers and the simulator load on first use, so `import switchq` stays cheap.
    if name in ("solvers", "validate"):
        return importlib.import_module(f"switchq.{name}")
    if name in ("simulate", "RunSettings"):
        return getattr(importlib.import_module("switchq.validate.harness"), name)
    if name == "sweep":
        return importlib.import_module("switchq.sweeps").sweep
    raise AttributeError(f"module 'switchq' has no attribute {name!r}")
