"""Ideal output queuing, speedup N (Karol, Hluchyj & Morgan 1987 §IV; paper 000 §2.2).

Simulated as ``oq``; answered as ``oq``: Karol's mean wait with unbounded
queues, and the exact finite-buffer chain (loss, throughput, wait).
"""

from __future__ import annotations

from switchq.declaration import Answer, Architecture, BenchCase, Case, Compare
from switchq.models.oq import OutputQueuedSwitch
from switchq.params import Param, check_applies, sim_only
from switchq.solved import Solver, solved

from ._shared import LOAD, PORTS, UNICAST_TRAFFIC, switch_family, unicast_traffic

BUFFER = Param("buffer", "output_buffer_cells", "int", None, low=1, high=1 << 20, unit="cells",
               aliases=("buffer_cells",), help="Output buffer in cells, counting the cell being sent (none = unbounded).")


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    return OutputQueuedSwitch(p["ports"], p["buffer"]), unicast_traffic(p)


def _check(p):
    from switchq.models import _check
    from switchq.solvers import oq

    oq._check_ports(p["ports"])
    oq._check_load(p["load"], stable=p["buffer"] is None)
    if p["buffer"] is not None:
        _check.integer("buffer_cells", p["buffer"], 1, oq.MAX_BUFFER_CELLS)


_MEAN_WAIT, _FINITE_BUFFER = Solver("oq.mean_wait"), Solver("oq.finite_buffer")


def _oq(p):
    """Karol's mean wait with unbounded queues, the finite-buffer chain with ``--buffer``."""
    if p["buffer"] is None:
        return _MEAN_WAIT(p["ports"], p["load"])
    return _FINITE_BUFFER(p["ports"], p["load"], p["buffer"])


def _wait_case(load):
    return Case("oq", f"N=16, load {load}", {"ports": 16, "load": load}, "mean_wait", solved("oq.mean_wait", 16, load),
                slots=300_000)


def _loss_case(buffer):
    return Case("oq", f"N=16, load 0.9, b={buffer}", {"ports": 16, "load": 0.9, "buffer": buffer},
                "loss_probability", solved("oq.finite_buffer", 16, 0.9, buffer, figure="loss_probability"),
                slots=300_000)


# Karol et al.'s mean wait and the finite buffer's loss: exact, so point targets.
_COMPARES = (Compare("mean_wait", "mean_wait", why="exact (Karol et al.; the (b+1)-state chain with a buffer)"),
             Compare("loss_probability", "loss_probability", precision=1e-4, precision_share=0.0,
                     why="exact (b+1)-state chain; precision 1e-4 in absolute terms, as a loss can be 0"))


DECLARATION = Architecture(
    name="oq", order=20, **switch_family("cell"),
    sample={"ports": 4, "load": 0.9, "buffer": 2},
    title="Output queuing",
    summary="ideal output queuing (speedup N): mean wait, finite-buffer loss (Karol et al. 1987)",
    description="Ideal output queuing (speedup N), optionally with finite output buffers.",
    config=(OutputQueuedSwitch,), architectures=("oq",), params=(PORTS, BUFFER), build=build,
    kernel="switchq.validate.arch.oq",
    main="mean_wait", table=("mean_wait", "loss_probability", "throughput", "unstable"),
    examples=("switchq simulate oq --ports 16 --load 0.9 --buffer 4 --json",),
    answers=(
        Answer("oq", "Output queuing", "ideal output queuing (speedup N): mean wait, finite-buffer loss "
                                       "(Karol et al. 1987)",
               params=(PORTS, LOAD, BUFFER, *sim_only(*UNICAST_TRAFFIC[1:])), solve=_oq,
               returns=(_MEAN_WAIT, _FINITE_BUFFER), check=_check, twin=lambda p: p,
               table=("mean_wait", "loss_probability", "throughput"),
               sim_main="mean_wait", sim_table=("mean_wait", "loss_probability", "throughput", "unstable"),
               description="Output queuing (speedup N): mean wait, and loss with a finite output buffer.",
               examples=("switchq solve oq --ports 16 --load 0.8 --json",
                         "switchq solve oq --ports 16 --load 0.9 --buffer 4"),
               vary_example="load=0.1:0.9:0.1 --ports 16", compares=_COMPARES),
    ),
    cases=(*(_wait_case(p) for p in (0.5, 0.8, 0.9)), *(_loss_case(b) for b in (2, 4))),
    bench=(BenchCase("OQ 32x32 load 0.9", {"ports": 32, "load": 0.9}),),
)
