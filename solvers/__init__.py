"""switchq.solvers: analytic answers (closed forms and Markov chains).

One module per model, each naming its paper and section:

- :mod:`.hol`    FIFO input queuing saturation (Karol, Hluchyj & Morgan 1987)
- :mod:`.window` window (look-ahead) scheduling (Hluchyj & Karol 1988)
- :mod:`.oq`     output queuing wait and finite-buffer loss (Karol et al. 1987)
- :mod:`.iq`     input-queuing mean delay below saturation (Karol et al. 1987)
- :mod:`.voq`    VOQ saturation throughput with PIM and iSLIP matching
- :mod:`.flow_control`  credit, grant, ACK/NAK and SFC closed forms (paper 002 §2-§4, §6)
- :mod:`.cicq`   buffered-crossbar latency and throughput limits (paper 002 §2.3, §5)
- :mod:`.fattree` k-ary n-trees: wiring, up/down routes, multicast spanning trees (paper 003 §2.2)

Nothing here imports Numba.
"""

from . import cicq, fattree, flow_control, hol, iq, oq, voq, window

__all__ = ["hol", "window", "oq", "iq", "voq", "flow_control", "cicq", "fattree"]
