"""switchq.validate: the Numba slotted simulator and the harness that checks solvers against it.

Importing this package does not import Numba; the kernels compile (or load
from Numba's on-disk cache) on first use.

Numba's cache notices a change to a kernel's own file but not to the shared
helpers it calls from ``kernel.py``, so a stale kernel could survive an edit
or an upgrade. The cache therefore lives in a folder named after a hash of
every source file of this package that compiles a kernel (under ``$XDG_CACHE_HOME/switchq`` or
``~/.cache/switchq``), unless ``NUMBA_CACHE_DIR`` is already set.
"""

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
    return str(root / f"numba-{digest.hexdigest()[:16]}")


os.environ.setdefault("NUMBA_CACHE_DIR", _cache_dir())
