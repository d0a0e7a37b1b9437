"""switchq.validate: the Numba slotted simulator and the harness that checks solvers against it.

Importing this package does not import Numba; the kernels compile (or load
from Numba's on-disk cache) on first use.

Numba's cache checks a kernel against its own file only, not against the
helpers it inlines or calls from other files. Importing this package therefore
points Numba at :class:`.cache.SourceLocator` (``NUMBA_CACHE_LOCATOR_CLASSES``),
which keeps each module's kernels in a folder named after the sources of that
module and of every module it imports (:mod:`.sources`): an edit to any of them
recompiles the kernel. The folders are under ``$NUMBA_CACHE_DIR``, set here to
``$XDG_CACHE_HOME/switchq/numba`` or ``~/.cache/switchq/numba`` unless already
set; one folder per kernel module and work tree stays.
"""

import functools
import os
import sys
import time
from pathlib import Path

# When this process began to import the simulator: a source edited after it may not be the code it runs
# (see sources.digest).
_IMPORTED_AT = time.time()


def _use_source_locator() -> None:
    if not os.environ.get("NUMBA_CACHE_DIR"):
        home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        os.environ["NUMBA_CACHE_DIR"] = str(home / "switchq" / "numba")
    locator = f"{__name__}.cache.SourceLocator"
    listed = os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES", "")
    if locator not in listed.split(","):
        os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = f"{locator},{listed}" if listed else locator
    config = sys.modules.get("numba.core.config")
    if config is not None:      # Numba already imported: it reads its environment again
        config.reload_config()


_use_source_locator()


@functools.lru_cache(maxsize=1)
def simulator_version() -> str:
    """A short hash of the sources a simulated figure depends on: the harness with its stability rules, every
    kernel module (``arch``, which the harness loads by a name it is given), and every module they import from
    the simulator's layers, at any depth (:func:`.sources.module_files`): the kernels' toolkit, the models.
    Stored sweep and report points carry it in their key (with the declarations' part, which the front door adds:
    :func:`switchq.store.simulator_version`), so a changed simulator never serves a stored figure it would no
    longer produce. Computed once per process.

    >>> len(simulator_version())
    12
    """
    from .sources import digest, memo_file, module_files, package_modules

    names = [f"{__name__}.harness", *package_modules(f"{__name__}.arch")]
    return digest(module_files(names, memo=memo_file("simulator", Path(__file__))))[:12]
