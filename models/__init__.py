"""switchq.models: frozen, validated descriptions of what is being asked.

No mathematics and no simulation here: a model is plain data that both the
solvers (``switchq.solvers``) and the simulator (``switchq.validate``) read.
Every single-switch architecture has its own configuration class in its own
module (``switchq.models.fifo``, ``.oq``, ``.voq``, ``.cicq``, ...);
:func:`Switch` builds any of them by architecture name.

Examples
--------
>>> from switchq.models import Switch
>>> Switch(8, "voq")
VoqSwitch(n_ports=8, matching='islip', iterations=1, input_buffer_cells=None)
"""

import importlib

# Where each name lives: loaded on first use, so a command that needs one model module (``switchq solve hol``
# reads ``switchq.models.fifo``) does not import the others.
_HOMES = {"Switch": "switch", "Traffic": "traffic", "PATTERNS": "traffic", "ARRIVALS": "traffic",
          "FlowControl": "flow_control", "PROTOCOLS": "flow_control", "FatTree": "network",
          "FatTreeNetwork": "network", "NetworkTiming": "network", "Reduction": "collective",
          "StartSkew": "collective", "NamdRound": "collective"}

__all__ = list(_HOMES)


def __getattr__(name):
    if name in _HOMES:
        return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
