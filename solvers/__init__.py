"""switchq.solvers: analytic answers (closed forms and Markov chains).

One module per model, each naming its paper and section:

- :mod:`.hol`    FIFO input queuing saturation (Karol, Hluchyj & Morgan 1987)
- :mod:`.window` window (look-ahead) scheduling (Hluchyj & Karol 1988)
- :mod:`.oq`     output queuing wait and finite-buffer loss (Karol et al. 1987)
- :mod:`.iq`     input-queuing mean delay below saturation (Karol et al. 1987)
- :mod:`.voq`    VOQ saturation throughput with PIM and iSLIP matching
- :mod:`.cioq`   CIOQ with speedup: saturation, and when it is output queuing
- :mod:`.flow_control`  credit, grant and ACK/NAK closed forms of one link (paper 002 §2)
- :mod:`.crossbar_memory` buffered-crossbar memory with credits and SFC, SFC field widths (paper 002 §4, §6.1)
- :mod:`.sizing` buffer sizing answers of ``switchq size`` (paper 002 §2-§6, paper 003 §2)
- :mod:`.cicq`   buffered-crossbar latency and throughput limits (paper 002 §2.3, §5)
- :mod:`.multicast` multicast saturation (paper 003 §2, §3.1), with admissible loads (:mod:`.fanout`; the
  fanout laws are :mod:`switchq.models.fanout`), exact chains (:mod:`.multicast_chains`) and large-N
  approximation (:mod:`.multicast_approx`)
- :mod:`.fattree` k-ary n-trees: wiring, up/down routes, multicast spanning trees (paper 003 §2.2)
- :mod:`.reduction` reductions with combine units on fat trees (paper 003 §3.2)
- :mod:`.bmin`   flit-level switches and BMINs: zero-load latency, channel-load bound, FIFO HOL, shared vs
  partitioned buffers, crossbar cost (paper 000 §3-§5)
- :mod:`.circuit` circuit-switched LANs: renewal-reward, chains, variable-size FIFO limit (paper 001)
- :mod:`.pfc`    PFC headroom and InfiniBand credits (IEEE 802.1Qbb Annex N, vendor formulas)
- :mod:`.wormhole` MediaWorm routers: pipeline latency, FGVC bound (paper 004), with
  :mod:`.wormhole_contention` (over-commitment, best effort, PCS), :mod:`.wormhole_answers` (every answer
  of ``switchq solve wormhole``) and :mod:`.wormhole_traffic` (the streams, read from
  :mod:`switchq.models.wormhole_frames`, ``.wormhole_schedule`` and ``.wormhole_placement``)
- :mod:`.markov` stationary distributions, the one helper every chain above uses

Nothing here imports Numba.

Examples
--------
>>> from switchq.solvers import hol
>>> hol.saturation_throughput(2).exact              # Karol's 2 x 2 FIFO switch
'3/4'
"""

import importlib

__all__ = ["hol", "window", "oq", "iq", "voq", "flow_control", "crossbar_memory", "cicq", "fattree", "markov"]


def __getattr__(name):
    # Each solver loads on first use: an analytic call imports the one it asks (and NumPy or SciPy only if
    # that one needs them).
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
