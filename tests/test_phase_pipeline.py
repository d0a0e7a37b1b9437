"""validate/arch/phase_pipeline.py: a phase's copies of the kernel's arrays, and of its tuples of arrays (state
records), are forwarded, so the cycle loop takes no reference count for them; every phased kernel uses it."""

from collections import namedtuple

import numpy as np
from numba import njit

from switchq.validate.arch import circuit, multicast
from switchq.validate.arch.flit import cut_through, vc
from switchq.validate.arch.phase_pipeline import PhasePipeline


@njit(inline="always")
def _phase(i, a, b):
    if a[i] > 0:
        b[i] = np.random.random()          # a call that may raise: the copies' counts are not pruned across it


Record = namedtuple("Record", "a b")


@njit(inline="always")
def _inner(i, rec):
    if np.random.random() > 0.5:
        rec.b[i] = 1.0


@njit(inline="always")
def _outer(i, rec):
    _inner(i, rec)                          # a record handed down: a copy in each phase


def _increfs(pipeline):
    @njit(pipeline_class=pipeline) if pipeline else njit
    def kernel(n):
        a = np.ones(4)
        b = np.zeros(4)
        for t in range(n):
            _phase(t & 3, a, b)
        return b.sum()

    kernel(8)
    return kernel.inspect_llvm(kernel.signatures[0]).count("call void @NRT_incref")


def _record_increfs(pipeline):
    @njit(pipeline_class=pipeline) if pipeline else njit
    def kernel(n, rec):
        for t in range(n):
            _outer(t & 3, rec)
        return rec.b.sum()

    kernel(8, Record(np.ones(4), np.zeros(4)))
    return kernel.inspect_llvm(kernel.signatures[0]).count("call void @NRT_incref")


def test_phase_pipeline_forwards_a_phases_array_copies_so_no_reference_counts_are_taken():
    # the default pipeline counts a copy in the loop each call; the phase pipeline none
    assert _increfs(None) >= 1
    assert _increfs(PhasePipeline) == 0


def test_phase_pipeline_forwards_a_phases_copy_of_a_tuple_of_arrays_too():
    # Numba 0.68: 4 counts with the default pipeline, 2 with this one: the copies' go; taking the element
    # ``rec.b`` out of the record still counts, which is why a phase in an event loop takes arrays one by one.
    assert _record_increfs(PhasePipeline) < _record_increfs(None)


def test_every_phased_kernel_is_compiled_with_the_phase_pipeline():
    for kernel in (vc.simulate, cut_through.simulate, multicast._run_multicast, circuit._run):
        assert kernel._compiler.pipeline_class is PhasePipeline, kernel
