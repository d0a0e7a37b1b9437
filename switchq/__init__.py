"""switchq: switch and router architecture questions answered in milliseconds.

The verbs are the CLI's, in Python (:mod:`switchq.verbs`): :func:`solve` and :func:`size` (analytic, no
compilation), :func:`simulate` (Monte Carlo, with 95 % intervals and seeds), :func:`validate` (both, with a
verdict), :func:`sweep` (design spaces, a pandas DataFrame) and :func:`report` (the papers' reports). Model
descriptions live in :mod:`switchq.models`, analytic answers in :mod:`switchq.solvers`, and the Numba
simulator that checks them in :mod:`switchq.validate` (imported lazily: ``import switchq`` compiles nothing).

Examples
--------
>>> import switchq
>>> round(switchq.solve("hol", ports=8).saturation_throughput, 5)
0.61839
>>> {"solve", "size", "simulate", "validate", "sweep", "report"} <= set(dir(switchq))
True
>>> round(switchq.solvers.hol.saturation_throughput(8).saturation_throughput, 4)
0.6184
"""

import importlib
import sys
import types

from .errors import InputError

__all__ = ["solve", "size", "simulate", "validate", "sweep", "report", "Switch", "Traffic", "RunSettings",
           "InputError", "models", "solvers", "__version__"]

_VERBS = ("solve", "size", "simulate", "report")   # switchq.validate: the package, below


def __getattr__(name):
    # Models, solvers, the simulator and the verbs load on first use, so `import switchq` (and with it every
    # CLI call) stays cheap.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("switchq")
        except PackageNotFoundError:  # running from a source tree without install
            return "0.0.0+local"
    if name in _VERBS:
        return getattr(importlib.import_module("switchq.verbs"), name)
    if name == "Traffic":
        return importlib.import_module("switchq.models").Traffic
    if name == "Switch":
        return importlib.import_module("switchq.api").Switch
    if name in ("models", "solvers"):
        return importlib.import_module(f"switchq.{name}")
    if name == "RunSettings":
        return importlib.import_module("switchq.validate.harness").RunSettings
    if name == "sweep":
        return importlib.import_module("switchq.sweeps").sweep
    raise AttributeError(f"module 'switchq' has no attribute {name!r}")


def __dir__():
    # Tab completion: the verbs and the public names, loaded or not (not the modules loaded on the way).
    return sorted(__all__)


class _Validate(types.ModuleType):
    """The subpackage ``switchq.validate`` (the simulator), which is also the verb ``switchq.validate(name)``.

    Both are ``switchq.validate``: importing any of the simulator's modules sets the package's attribute to
    the subpackage, so the verb cannot be a function beside it. Called, the subpackage runs
    :func:`switchq.verbs.validate`; as a module it is unchanged.
    """

    def __call__(self, name: str = "all", /, **options):
        return importlib.import_module("switchq.verbs").validate(name, **options)


_CALLED = """
Called, ``switchq.validate(name="all", *, full=False, workers=0, seed=1, progress=False)`` is the verb
``switchq validate NAME`` (:func:`switchq.verbs.validate`): each declared case of suite ``name`` run analytic and
simulated, judged by the verdict engine; ``help(switchq.verbs.validate)`` lists the suites.
"""


class _Package(types.ModuleType):
    @property
    def validate(self):
        if "validate" not in self.__dict__:
            importlib.import_module("switchq.validate")
            # The import system sets it through the setter below on the first import; after a delete (a stand-in
            # removed by mock.patch), the module is found again where imports keep it.
            self.validate = sys.modules["switchq.validate"]
        return self.__dict__["validate"]

    @validate.setter
    def validate(self, value):
        # The import system sets the subpackage here when it is first imported: it becomes callable. Anything
        # else set here (a test's stand-in, mock.patch's) is kept as it is.
        if isinstance(value, types.ModuleType) and value.__name__ == "switchq.validate":
            value.__class__ = _Validate
            if _CALLED not in (value.__doc__ or ""):
                value.__doc__ = (value.__doc__ or "") + _CALLED      # help(switchq.validate) tells both
        self.__dict__["validate"] = value

    @validate.deleter
    def validate(self):
        self.__dict__.pop("validate", None)


sys.modules[__name__].__class__ = _Package
