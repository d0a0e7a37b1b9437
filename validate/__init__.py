"""switchq.validate: the Numba slotted simulator and the harness that checks solvers against it.

Importing this package does not import Numba; the kernels compile (or load
from Numba's on-disk cache) on first use.

Numba's cache notices a change to a kernel's own file but not to the shared
helpers it calls from ``kernel.py``, so a stale kernel could survive an edit
or an upgrade. The cache therefore lives in a folder named after a hash of
every source file of this package that compiles a kernel (under ``$XDG_CACHE_HOME/switchq`` or
``~/.cache/switchq``), unless ``NUMBA_CACHE_DIR`` is already set.
"""

import functools
import hashlib
import os
from pathlib import Path


def _cache_dir() -> str:
    here = Path(__file__).parent
    digest = hashlib.sha256()
    # Every module holding compiled code (kernel.py, arch/, the network and reduction kernels), but not
    # the harness or report builders: editing those must not throw away every compiled kernel.
    for path in sorted(here.rglob("*.py")):
        source = path.read_bytes()
        if b"@njit" in source:
            digest.update(source)
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "switchq"
    # Named after the package too: Numba's cache index pickles the kernel's module by name, so a kernel compiled
    # with this folder imported as top-level ``validate`` (pytest --doctest-modules validate/...) cannot be read
    # back by ``switchq.validate`` (ModuleNotFoundError: No module named 'validate'), and would break every run.
    return str(root / f"numba-{__name__.replace('.', '-')}-{digest.hexdigest()[:16]}")


os.environ.setdefault("NUMBA_CACHE_DIR", _cache_dir())


@functools.lru_cache(maxsize=1)
def simulator_version() -> str:
    """A short hash of everything a simulated figure depends on: the kernels and the harness with its
    stability rules, the declarations (metrics, bounds, defaults) and the models. Stored sweep and report points carry it in their
    key, so a changed simulator never serves a stored figure it would no longer produce. Read once per
    process: the code it hashes does not change under a running process."""
    import switchq.architectures
    import switchq.models

    digest = hashlib.sha256()
    here = Path(__file__).parent
    files = [p for p in sorted(here.rglob("*.py")) if b"@njit" in p.read_bytes()]
    # The harness, its stability rules and every kernel module (some have no @njit of their own).
    files += [here / "harness.py", here / "result.py", here / "stability.py", *sorted((here / "arch").rglob("*.py"))]
    files.append(Path(switchq.architectures.__path__[0]).parent / "declaration.py")
    for package in (switchq.architectures, switchq.models):
        files += sorted(Path(package.__path__[0]).glob("*.py"))
    for path in files:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
