"""switchq.validate: the Numba slotted simulator and the harness that checks solvers against it.

Importing this package does not import Numba; the kernels compile (or load
from Numba's on-disk cache) on first use.
"""
