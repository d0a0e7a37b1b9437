"""switchq.models: frozen, validated descriptions of what is being asked.

No mathematics and no simulation here: a model is plain data that both the
solvers (``switchq.solvers``) and the simulator (``switchq.validate``) read.
Every single-switch architecture has its own configuration class in its own
module (``switchq.models.fifo``, ``.oq``, ``.voq``, ``.cicq``, ...);
:func:`Switch` builds any of them by architecture name.

Examples
--------
>>> Switch(8, "voq")
VoqSwitch(n_ports=8, matching='islip', iterations=1, input_buffer_cells=None)
"""

from .collective import NamdRound, Reduction, StartSkew
from .flow_control import PROTOCOLS, FlowControl
from .network import FatTree, FatTreeNetwork, NetworkTiming
from .switch import Switch
from .traffic import ARRIVALS, PATTERNS, Traffic

__all__ = ["Switch", "Traffic", "FlowControl", "FatTree", "FatTreeNetwork", "NetworkTiming", "Reduction",
           "StartSkew", "NamdRound", "PROTOCOLS", "PATTERNS", "ARRIVALS"]
