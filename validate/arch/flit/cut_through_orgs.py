"""Where a flit is stored in paper 000's buffer organisations (§3): one interface, a module an organisation.

``fits``, ``commit`` and ``release`` choose the module of the kernel's organisation (:mod:`.org_fifo` for FIFO,
DAMQ and the central buffer's input FIFOs, :mod:`.org_safc`, :mod:`.org_hipiqs`; DAMQ's read port is
:mod:`.org_damq`, the central buffer's admission :mod:`.cut_through_central`). ``org`` is a constant in the
kernel compiled for it (:func:`switchq.validate.arch.flit.spec`), so the choice is made at compile time and the
others' code is not in it.
"""

from __future__ import annotations

from numba import njit

from . import org_fifo, org_hipiqs, org_safc
from .records import HIPIQS, SAFC


@njit(cache=True, inline="always")
def fits(org, sw, S, q, gi):
    """Whether queue ``q`` of input ``gi`` can take one more flit."""
    if org == SAFC:
        return org_safc.fits(sw, S, q, gi)
    if org == HIPIQS:
        return org_hipiqs.fits(sw, S, q, gi)
    return org_fifo.fits(sw, S, q, gi)


@njit(cache=True, inline="always")
def commit(org, sw, S, q, gi):
    """One flit stored in queue ``q`` of input ``gi`` (False: no room, nothing changed)."""
    if org == SAFC:
        return org_safc.commit(sw, S, q, gi)
    if org == HIPIQS:
        return org_hipiqs.commit(sw, S, q, gi)
    return org_fifo.commit(sw, S, q, gi)


@njit(cache=True, inline="always")
def release(org, sw, S, q, gi):
    """One flit read from queue ``q`` of input ``gi``."""
    if org == SAFC:
        org_safc.release(sw, S, q, gi)
    elif org == HIPIQS:
        org_hipiqs.release(sw, S, q, gi)
    else:
        org_fifo.release(sw, S, q, gi)
