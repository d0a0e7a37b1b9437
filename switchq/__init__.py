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

import importlib

from .errors import InputError

__all__ = ["models", "solvers", "validate", "simulate", "RunSettings", "sweep", "Switch", "Traffic", "InputError",
           "__version__"]


def __getattr__(name):
    # Models, solvers and the simulator load on first use, so `import switchq` (and with it every CLI call)
    # stays cheap.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("switchq")
        except PackageNotFoundError:  # running from a source tree without install
            return "0.0.0+local"
    if name == "Traffic":
        return importlib.import_module("switchq.models").Traffic
    if name in ("Switch", "simulate"):
        return getattr(importlib.import_module("switchq.api"), name)
    if name in ("models", "solvers", "validate"):
        return importlib.import_module(f"switchq.{name}")
    if name == "RunSettings":
        return importlib.import_module("switchq.validate.harness").RunSettings
    if name == "sweep":
        return importlib.import_module("switchq.sweeps").sweep
    raise AttributeError(f"module 'switchq' has no attribute {name!r}")
