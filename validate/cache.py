"""Numba's on-disk cache for switchq's kernels, in folders named after everything the kernel is built from.

Numba checks a cached kernel against its own file only, so an edit to a helper it inlines or calls from
another file (``kernel.py``, ``arrivals.py``, ``arch/flit/rules.py``, ...) would leave it on its old machine
code. A function of the simulator's layers (:data:`.sources.LAYERS`) is cached instead in::

    $NUMBA_CACHE_DIR/<source folder>_<hash of its path>/<module>-<digest>/

``<digest>`` (16 hex digits) is :func:`.sources.digest` of the module's source and of every module it imports
from those layers, at any depth (:func:`.sources.module_files`, whose reading of the imports is kept beside the
folder, in ``<module>.files.json``, while no file in it changed: a process that loads a kernel parses no
source). An edit to any of them names a new folder, so
the kernel compiles again; an edit back finds the old folder only if it is still there. ``<module>`` is the full
name the module was imported by: Numba's index pickles it, so a kernel compiled as top-level ``validate``
(``pytest --doctest-modules validate/``) could not be read back by ``switchq.validate``. The first part is
Numba's own name for the source folder, so two work trees never share (nor remove) each other's folders. When
a process first loads a module's kernels, the folders of that module its sources no longer name are removed:
one folder per module and work tree stays.

Numba finds :class:`SourceLocator` through ``NUMBA_CACHE_LOCATOR_CLASSES``, which :mod:`switchq.validate` sets
on import (before this module, which imports Numba, is loaded); functions outside switchq are left to Numba's
own locators.

Examples
--------
>>> from switchq.validate.arch import oq
>>> locator = oq._run_oq._cache._impl.locator
>>> type(locator).__name__, Path(locator.get_cache_path()).name.rsplit("-", 1)[0]
('SourceLocator', 'switchq.validate.arch.oq')
"""

from __future__ import annotations

import functools
import re
import shutil
from pathlib import Path

from numba.core import caching, config

from .sources import LAYERS, digest, module_files, within

__all__ = ["SourceLocator"]


class SourceLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Numba cache locator: a switchq kernel's folder is named after its module's sources (module docstring)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = _folder(py_func.__module__, py_file)

    def get_cache_path(self):
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        if within(py_func.__module__ or "", LAYERS):
            return super().from_function(py_func, py_file) if config.CACHE_DIR else None
        listed = [name.strip() for name in config.CACHE_LOCATOR_CLASSES.split(",")]
        if listed[-1] != f"{cls.__module__}.{cls.__qualname__}":
            return None              # the locators listed after this one decide
        for numba_locator in caching.CacheImpl._locator_classes:
            locator = numba_locator.from_function(py_func, py_file)
            if locator is not None:
                return locator
        return None


@functools.lru_cache(maxsize=None)
def _folder(module: str, py_file: str) -> str:
    """The cache folder of ``module``'s kernels; its outdated siblings are removed (once per process)."""
    parent = Path(config.CACHE_DIR) / SourceLocator.get_suitable_cache_subpath(py_file)
    name = f"{module}-{digest(module_files([module], memo=parent / f'{module}.files.json'))[:16]}"
    outdated = re.compile(re.escape(module) + "-[0-9a-f]{16}")
    if parent.is_dir():
        for old in parent.iterdir():
            if old.name != name and outdated.fullmatch(old.name):
                # A process still running the old sources loses nothing it needs: Numba compiles what it
                # cannot load, and makes the folder again to save it.
                shutil.rmtree(old, ignore_errors=True)
    return str(parent / name)
