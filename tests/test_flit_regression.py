"""Regression: the flit kernel's speed work must not change a result.

Every case below is a short run of :func:`switchq.validate.arch.flit.trace_run`; the digest covers all its
counters and every flit delivered (cycle, node, packet, flit number, VC). The expected digests were made by
the kernel of commit 5f6550f, before the speed changes that followed it (the per-buffer message records
and the node outputs' delay line of the VC path; body flits counted in at send on 1-cycle links and a
packet's tail marked on its way to the node in the paper-000 path), and the current kernel gives the same ones. The matrix reaches each of those shortcuts and
the paths that must bypass them: every buffer organisation, 1-, 2- and 3-cycle links, packetisation, both
crossbars, one matching iteration, the three schedulers, both best-effort VC rules, the fat mesh, PCS and
3-cycle router links.

The digests are exact: an intended change of the model changes them and must say so here. Issue 25 changed
the seven wormhole runs on a multiplexed crossbar: its outputs (B) now take the smallest stamp by default
(§III-D; with ``crossbar_output="fifo"`` the six that are not PCS give their former digests exactly), and PCS
draws round(load / stream rate x nodes) streams in all (182 at 0.91, where rounding down per input drew 176).
The two full-crossbar runs and every paper-000 run are unchanged. They use only
integer counters and the simulator's own random numbers (Numba's Mersenne Twister, NumPy's PCG64 for the
stream placement); a platform whose libm rounded a logarithm differently could draw a different gap.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import numpy as np
import pytest

from switchq.models.flit import FlitNetwork, FlitSwitch, MessageTraffic
from switchq.registry import declarations
from switchq.validate import kernel as K
from switchq.validate.arch import flit


def _digest(stats, trace) -> str:
    h = hashlib.sha256(np.ascontiguousarray(stats, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(trace, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("org, link_delay, packet_flits, load, expected", [
    ("fifo", 1, None, 0.5, "4933b23989aae679"),
    ("fifo", 3, None, 0.5, "8121fa10fe0c47b8"),
    ("safc", 1, None, 0.7, "93b7022bfc12aa91"),
    ("damq", 3, None, 0.7, "8e9282572974a669"),
    ("hipiqs", 1, None, 0.8, "03e7a7977b63ef44"),
    ("hipiqs", 3, 16, 0.8, "11acc67161db4f66"),
    ("central", 1, None, 0.8, "f32511a499bd278f"),
    ("central", 2, 16, 0.6, "aece434c9c0eb3bd"),
])
def test_paper_000_runs_unchanged(org, link_delay, packet_flits, load, expected):
    # HIPIQS's FIFO units out of the buffer, as the default was when the digests were made (issue 36 moved it
    # on top, as the text says): the digests pin the kernel, not the default.
    own = {"crosspoint_storage": "within"} if org == "hipiqs" else {}
    net = FlitNetwork.bmin(16, FlitSwitch(8, org, 640, **own), link_delay=link_delay)
    stats, trace = flit.trace_run(net, MessageTraffic(load, 64, packet_flits), K.Run(slots=3000, warmup=500, drain=1500,
                                                                                     seed=7))
    assert _digest(stats, trace) == expected


@pytest.mark.parametrize("params, link_cycles, expected", [
    ({}, 1, "a470575c67344ac7"),
    ({"crossbar": "full"}, 1, "77fa5806a3dc85ad"),
    ({"crossbar_iterations": 1, "scheduler": "fgfq"}, 1, "88bbc6b865ca88b8"),
    ({"scheduler": "fifo", "load": 0.9}, 1, "65d5d6818e36f690"),
    ({"best_effort_vcs": "drawn", "mix": (50.0, 50.0)}, 1, "ebbd8c37435e656c"),
    ({"topology": "fatmesh"}, 1, "04c0618a4ea87a96"),
    ({"topology": "fatmesh", "crossbar": "full"}, 1, "b909a3dca4718dbf"),
    ({"switching": "pcs", "vcs": 24, "link_rate": 100e6, "mix": (100.0, 0.0), "load": 0.91}, 1, "75882e2d1a82f7eb"),
    ({"load": 0.7}, 3, "e4a0d30c88507b17"),
])
def test_wormhole_runs_unchanged(params, link_cycles, expected):
    d = declarations()["wormhole"]
    net, traffic = d.build({**d.defaults(), "load": 0.8, "seconds": 0.003, "warmup_seconds": 0.001, **params})
    if link_cycles != 1:
        net = replace(net, router=replace(net.router, link_cycles=link_cycles))
    stats, trace = flit.trace_run(net, traffic, K.Run(slots=1, warmup=0, drain=0, seed=5))
    assert _digest(stats, trace) == expected
