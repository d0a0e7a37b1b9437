"""switchq.models: frozen, validated descriptions of what is being asked.

No solving and no simulation here: a model is plain data that both the
solvers (``switchq.solvers``) and the simulator (``switchq.validate``) read,
with the laws and tables both need and neither may own (a twin must not run
the solver it checks): topologies (:mod:`.topology`), fanout laws
(:mod:`.fanout`), the PFC and InfiniBand standards' constants
(:mod:`.pfc_standard`), MediaWorm's stream placement, frames and schedules
(:mod:`.wormhole_placement`, :mod:`.wormhole_frames`, :mod:`.wormhole_schedule`).
Every single-switch architecture has its own configuration class in its own
module (``switchq.models.fifo``, ``.oq``, ``.voq``, ``.cicq``, ...);
:func:`switchq.Switch` (the front door, which knows the declarations) builds any of them by
architecture name.

Examples
--------
>>> from switchq.models import Traffic
>>> Traffic(load=0.5).load
0.5
"""

import importlib

# Where each name lives: loaded on first use, so a command that needs one model module (``switchq solve hol``
# reads ``switchq.models.fifo``) does not import the others.
_HOMES = {"Traffic": "traffic", "PATTERNS": "traffic", "ARRIVALS": "traffic",
          "FlowControl": "flow_control", "PROTOCOLS": "flow_control", "FatTree": "network",
          "FatTreeNetwork": "network", "NetworkTiming": "network", "Reduction": "collective",
          "StartSkew": "collective", "NamdRound": "namd"}

__all__ = list(_HOMES)


def __getattr__(name):
    if name in _HOMES:
        return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
