"""switchq.models: frozen, validated descriptions of what is being asked.

No mathematics and no simulation here: a model is plain data that both the
solvers (``switchq.solvers``) and the simulator (``switchq.validate``) read.
"""

from .collective import Reduction
from .flow_control import PROTOCOLS, FlowControl
from .network import FatTree, FatTreeNetwork, NetworkTiming
from .switch import ARBITRATIONS, ARCHITECTURES, MATCHINGS, WINDOW_POLICIES, Switch
from .traffic import ARRIVALS, PATTERNS, Traffic

__all__ = ["Switch", "Traffic", "FlowControl", "FatTree", "FatTreeNetwork", "NetworkTiming", "Reduction", "PROTOCOLS", "ARBITRATIONS", "ARCHITECTURES", "MATCHINGS", "WINDOW_POLICIES", "PATTERNS", "ARRIVALS"]
