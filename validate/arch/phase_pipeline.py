"""How a kernel whose cycle is a pipeline of inlined phases is compiled: Numba's nopython pipeline with the
phases' array copies forwarded (``@njit(cache=True, pipeline_class=PhasePipeline)``).

A phase (``@njit(inline="always")``, e.g. :mod:`.flit.vc_inject`, :mod:`.flit.vc_crossbar`, :mod:`.flit.vc_links`)
is inlined into the cycle loop at Numba's IR level, each of its parameters becoming a copy of the kernel's
variable (``S.1 = S``). Numba counts a reference for every array copy and releases it where the copy dies;
LLVM's pruning removes such pairs only where no call that may raise lies between them, and a phase that draws
a random number or calls a compiled helper has such a call. Measured on paper 004's router: 39 pairs left in
the cycle loop (the single function before the phases: 3), the kernel 1.68 times slower. :class:`PhasePipeline`
adds one pass after type inference that replaces each such copy by the variable it copies, so a phase's arrays
are the kernel's own and no count is taken (paper 004's router: 1 pair left, and 1-3 % faster than the single
function). A tuple of arrays (a state record such as the circuit kernel's ``Mix`` or ``Trace``) handed to a phase
is forwarded the same way (paper 001's circuit kernel, whose phases are handed both: 10-21 % slower than the
single function with the records' copies counted, 1-4 % with them forwarded). An element taken out of a tuple
in the loop still counts, so a phase takes the arrays it uses most one by one.
"""

from __future__ import annotations

from collections import Counter

from numba.core import ir, types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.ir_utils import replace_vars_stmt
from numba.core.typed_passes import NopythonTypeInference

__all__ = ["PhasePipeline"]


@register_pass(mutates_CFG=False, analysis_only=False)
class ForwardArrayCopies(FunctionPass):
    """Replace ``a = b`` (both arrays, or tuples of arrays such as a state record, of one type, each assigned once
    in the function) by ``b`` wherever ``a`` is used. ``b`` never changes, so every use of ``a`` reads the same
    array; the copy, and its reference count (one per array of a tuple), go."""

    _name = "forward_array_copies"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        blocks = state.func_ir.blocks
        typemap = state.typemap
        assigned = Counter(stmt.target.name for block in blocks.values() for stmt in block.body
                           if isinstance(stmt, ir.Assign))
        copies = {}
        for block in blocks.values():
            for stmt in block.body:
                if (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Var)
                        and _of_arrays(typemap.get(stmt.target.name))
                        and typemap[stmt.target.name] == typemap.get(stmt.value.name)
                        and assigned[stmt.target.name] == 1 and assigned[stmt.value.name] == 1):
                    copies[stmt.target.name] = stmt.value
        if not copies:
            return False
        for name in copies:                 # a copy of a copy: the original
            root = copies[name]
            while root.name in copies:
                root = copies[root.name]
            copies[name] = root
        for block in blocks.values():
            body = []
            for stmt in block.body:
                if isinstance(stmt, ir.Assign) and stmt.target.name in copies:
                    continue
                replace_vars_stmt(stmt, copies)
                body.append(stmt)
            block.body = body
        return True


def _of_arrays(t) -> bool:
    """Whether type ``t`` is an array or a tuple (named or not) of arrays, at any depth."""
    if isinstance(t, types.Array):
        return True
    return isinstance(t, types.BaseTuple) and len(t) > 0 and all(_of_arrays(m) for m in t)


class PhasePipeline(CompilerBase):
    """Numba's nopython pipeline, with :class:`ForwardArrayCopies` after type inference."""

    def define_pipelines(self):
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.add_pass_after(ForwardArrayCopies, NopythonTypeInference)
        pm.finalize()
        return [pm]
