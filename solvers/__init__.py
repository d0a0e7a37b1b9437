"""switchq.solvers: analytic answers (closed forms and Markov chains).

One module per model, each naming its paper and section:

- :mod:`.hol`    FIFO input queuing saturation (Karol, Hluchyj & Morgan 1987)
- :mod:`.window` window (look-ahead) scheduling (Hluchyj & Karol 1988)
- :mod:`.oq`     output queuing wait and finite-buffer loss (Karol et al. 1987)
- :mod:`.iq`     input-queuing mean delay below saturation (Karol et al. 1987)
- :mod:`.voq`    VOQ saturation throughput with PIM and iSLIP matching

Nothing here imports Numba.
"""

from . import hol, iq, oq, voq, window

__all__ = ["hol", "window", "oq", "iq", "voq"]
