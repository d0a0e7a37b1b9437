"""BookSim2's routing functions and synthetic traffic patterns for its fly, mesh, torus and fat tree, as Numba
functions of integers (BookSim2 @ 28f43299: ``routefunc.cpp``, ``traffic.cpp``; notes
``booksim/topologies_traffic.md`` §2-§5). Routers, ports and nodes are numbered as
:func:`switchq.models.iq_topology.wiring` numbers them, which is BookSim's.

Routing (flits of class ANY_TYPE, whose VCs are 0..num_vcs-1; the read/write request and reply classes are not
modelled). :func:`route` answers BookSim's routing call at router ``router`` for a head flit that arrived on
input ``in_port``: the output port and the range of VCs it may take there, and the flit's torus partition
``ph`` after the call. Called with ``inject`` (BookSim's injection call) it returns port -1 and the VCs a
source may put the head flit on. The routing function is the topology's:

- fly, ``dest_tag_fly``: stage s takes output digit n-1-s of the destination (base k).
- mesh, ``dim_order_mesh`` (``dor_mesh``): the lowest dimension whose digit differs, towards the destination's
  digit (never a wrap link); at the destination router the ejection port 2n.
- torus, ``dim_order_torus``: dimension order, each ring the shorter way; on entering a dimension (from another
  one or from injection) a tie (k even, k/2 away) goes +1 or -1 at random (one draw, BookSim's ``RandomInt(1)``)
  and the partition is set: ``ph`` = 1 iff the current digit exceeds the destination's. Going +1 that is the
  packet that crosses the k-1 -> 0 dateline; going -1 it is the packet that does *not* cross it (BookSim codes
  both directions with the same comparison). Along a dimension the flit keeps its direction and ``ph``. Away
  from the destination router the VCs are halved, ``ph`` 0 the lower ``[0, num_vcs - 1 - num_vcs // 2]``,
  ``ph`` 1 the upper ``[num_vcs // 2, num_vcs - 1]`` (overlapping in one VC when num_vcs is odd, as in
  BookSim); num_vcs must be >= 2. At the destination router, and at injection, all VCs.
- fattree, ``nca_fattree``: a router whose subtree holds the destination sends it down (a leaf: port dest mod
  k), any other sends it up a port k + j, j uniform on 0..k-1. ``anca_fattree`` (:func:`route_anca`) instead
  draws two up ports j1, j2 and takes the one whose next buffers hold fewer flits (j1 on a tie), given those
  occupancies: BookSim's ``GetUsedCredit``, the total occupancy of the output's downstream input buffer. With
  BookSim's lookahead routing that router is the *next* one, read when the flit wins switch allocation.

Random draws use Numba's ``np.random`` stream (seeded by ``np.random.seed`` inside a compiled function), not
BookSim's Knuth generator: a run matches BookSim in distribution, not flit for flit.

Traffic (:func:`destination`): BookSim's ``uniform`` (any node, the source included), ``bitcomp``,
``transpose``, ``bitrev``, ``shuffle``, and the digit patterns ``tornado`` and ``neighbor`` with BookSim's
default parameters (the network's k and n, xr = 1). :func:`check_pattern` refuses what BookSim refuses.
Not modelled: randperm, background, diagonal, asymmetric, taper64, bad_dragon, badperm_yarc, hotspot, and the
other routing functions BookSim registers for these topologies (the ``_ni`` and ``_bal`` variants, romm,
valiant, min_adapt, xy_yx, chaos, planar_adapt).

Examples
--------
>>> route(MESH, 4, 2, 4, 5, 4, 10, -1, False)       # router 5 = (1, 1) to node 10 = (2, 2): +x first
(0, 0, 3, -1)
>>> route(TORUS, 5, 1, 4, 4, 2, 1, -1, False)       # 4 -> 1 in a 5-ring goes +1 across the dateline: ph 1
(0, 2, 3, 1)
>>> destination(BITREV, 1, 8, 2, 3), destination(TORNADO, 0, 8, 8, 1)
(4, 3)
"""

from __future__ import annotations

import numbers

import numpy as np
from numba import njit

from switchq.errors import InputError

__all__ = ["FLY", "MESH", "TORUS", "FATTREE", "TOPOLOGY_CODES", "DEST_TAG", "DIM_ORDER", "NCA", "ANCA",
           "ROUTINGS", "UNIFORM", "BITCOMP", "TRANSPOSE", "BITREV", "SHUFFLE", "TORNADO", "NEIGHBOR", "PATTERNS",
           "route", "route_anca", "destination", "check_routing", "check_pattern"]

FLY, MESH, TORUS, FATTREE = 0, 1, 2, 3
TOPOLOGY_CODES = {"fly": FLY, "mesh": MESH, "torus": TORUS, "fattree": FATTREE}
DEST_TAG, DIM_ORDER, NCA, ANCA = 0, 1, 2, 3
# BookSim's routing function names (routing_function + "_" + topology) -> (topology, routing).
ROUTINGS = {"dest_tag_fly": (FLY, DEST_TAG), "dim_order_mesh": (MESH, DIM_ORDER), "dor_mesh": (MESH, DIM_ORDER),
            "dim_order_torus": (TORUS, DIM_ORDER), "nca_fattree": (FATTREE, NCA), "anca_fattree": (FATTREE, ANCA)}

UNIFORM, BITCOMP, TRANSPOSE, BITREV, SHUFFLE, TORNADO, NEIGHBOR = 0, 1, 2, 3, 4, 5, 6
PATTERNS = {"uniform": UNIFORM, "bitcomp": BITCOMP, "transpose": TRANSPOSE, "bitrev": BITREV,
            "shuffle": SHUFFLE, "tornado": TORNADO, "neighbor": NEIGHBOR}
_BIT_PATTERNS = (BITCOMP, TRANSPOSE, BITREV, SHUFFLE)


@njit(cache=True, inline="always")
def _power(k, e):
    """k^e in integers (e >= 0)."""
    p = 1
    for _ in range(e):
        p *= k
    return p


@njit(cache=True)
def _first_difference(k, n, cur, dest):
    """The lowest dimension where router ``cur`` and ``dest`` differ, with the two digits there (n, 0, 0 when
    they are the same router)."""
    for d in range(n):
        c, t = cur % k, dest % k
        if c != t:
            return d, c, t
        cur //= k
        dest //= k
    return n, 0, 0


@njit(cache=True)
def _dim_order_torus(k, n, num_vcs, router, in_port, dest, ph):
    d, c, t = _first_difference(k, n, router, dest)
    if d == n:
        return 2 * n, 0, num_vcs - 1, ph
    if in_port // 2 != d:
        # Entering dimension d: the shorter way round; twice the +1 distance against k says which.
        excess = k - 2 * ((t - c + k) % k)
        if excess > 0 or (excess == 0 and np.random.randint(0, 2) == 1):
            out = 2 * d
        else:
            out = 2 * d + 1
        ph = 1 if c > t else 0
    else:
        out = in_port ^ 1          # arrived on input 2d from the +1 side: leave on 2d + 1, the same way
    half = num_vcs // 2
    if ph == 0:
        return out, 0, num_vcs - 1 - half, ph
    return out, half, num_vcs - 1, ph


@njit(cache=True)
def _tree_down(k, n, router, dest):
    """The down port towards ``dest`` if router ``router``'s subtree holds it, else -1 (go up)."""
    per_level = _power(k, n - 1)
    level = router // per_level
    pos = router % per_level
    span = _power(k, n - level)                 # nodes below a router of this level
    subtree = pos // _power(k, n - 1 - level)   # which subtree of that span this router serves
    if dest < subtree * span or dest >= (subtree + 1) * span:
        return -1
    if level == n - 1:
        return dest % k
    return (dest - subtree * span) // _power(k, n - 1 - level)


@njit(cache=True)
def route(topo, k, n, num_vcs, router, in_port, dest, ph, inject):
    """BookSim2's routing call for topology ``topo`` (its routing function: see the module docstring).

    Returns ``(out_port, vc_lo, vc_hi, ph)``: the output, the inclusive VC range allowed there, and the
    flit's partition after the call (changed only by the torus, on entering a dimension; pass -1 for a
    flit not yet routed). ``inject``: the source's call (port -1, the VCs it may inject on).
    """
    if inject:
        return -1, 0, num_vcs - 1, ph
    if topo == TORUS:
        return _dim_order_torus(k, n, num_vcs, router, in_port, dest, ph)
    if topo == FLY:
        stage = router // _power(k, n - 1)
        return (dest // _power(k, n - 1 - stage)) % k, 0, num_vcs - 1, ph
    if topo == MESH:
        d, c, t = _first_difference(k, n, router, dest)
        out = 2 * n if d == n else (2 * d if c < t else 2 * d + 1)
        return out, 0, num_vcs - 1, ph
    out = _tree_down(k, n, router, dest)
    if out < 0:
        out = k + np.random.randint(0, k)
    return out, 0, num_vcs - 1, ph


@njit(cache=True)
def route_anca(k, n, num_vcs, router, in_port, dest, ph, inject, used):
    """BookSim2's ``anca_fattree``: as :func:`route` for a fat tree, but going up it draws two up ports
    k + j1, k + j2 and takes k + j2 if ``used[k + j1] > used[k + j2]``, else k + j1. ``used[o]``: the flits
    held in the buffers output o of this router feeds (BookSim's ``GetUsedCredit(o)``).
    """
    if inject:
        return -1, 0, num_vcs - 1, ph
    out = _tree_down(k, n, router, dest)
    if out < 0:
        j1 = np.random.randint(0, k)
        j2 = np.random.randint(0, k)
        out = k + j2 if used[k + j1] > used[k + j2] else k + j1
    return out, 0, num_vcs - 1, ph


@njit(cache=True)
def _digit_shift(src, k, n, step):
    """Every one of the n base-k digits of ``src`` moved ``step`` along its ring."""
    out = 0
    place = 1
    for _ in range(n):
        out += place * (((src // place) % k + step) % k)
        place *= k
    return out


@njit(cache=True)
def destination(pattern, src, nodes, k, n):
    """The destination BookSim2's traffic ``pattern`` gives a packet from node ``src`` of ``nodes``
    (``k``, ``n``: the network's, the digit patterns' default parameters). -1 for an unknown pattern.
    The bit patterns need ``nodes`` a power of two, transpose an even one (:func:`check_pattern`)."""
    if pattern == UNIFORM:
        return np.random.randint(0, nodes)
    if pattern == BITCOMP:
        return ~src & (nodes - 1)
    if pattern == TRANSPOSE:
        bits = 0
        while (1 << (bits + 1)) <= nodes:
            bits += 1
        half = bits // 2
        low = (1 << half) - 1
        return ((src >> half) & low) | ((src << half) & (low << half))
    if pattern == BITREV:
        out = 0
        m = nodes
        while m > 1:
            out = (out << 1) | (src & 1)
            src >>= 1
            m >>= 1
        return out
    if pattern == SHUFFLE:
        twice = src << 1
        return (twice & (nodes - 1)) | (1 if twice & nodes else 0)
    if pattern == TORNADO:
        return _digit_shift(src, k, n, (k + 1) // 2 - 1)
    if pattern == NEIGHBOR:
        return _digit_shift(src, k, n, 1)
    return -1


def check_routing(routing: str, topology: str, num_vcs: int) -> tuple:
    """``(topology code, routing code)`` for BookSim's routing function ``routing`` on ``topology``, else
    InputError: the function must be this topology's, and the torus's VC halves need ``num_vcs`` >= 2.

    >>> check_routing("dim_order_torus", "torus", 1)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: num_vcs: got 1; allowed: an integer >= 2 with dim_order_torus (two VC halves)
    """
    if topology not in TOPOLOGY_CODES:
        raise InputError("topology", topology, "one of " + ", ".join(TOPOLOGY_CODES))
    mine = sorted(name for name, (t, _) in ROUTINGS.items() if t == TOPOLOGY_CODES[topology])
    if routing not in mine:
        raise InputError("routing", routing, f"one of {', '.join(mine)} on a {topology}")
    least = 2 if routing == "dim_order_torus" else 1
    if isinstance(num_vcs, bool) or not isinstance(num_vcs, numbers.Integral) or num_vcs < least:
        raise InputError("num_vcs", num_vcs, "an integer >= 1" if least == 1 else
                         f"an integer >= 2 with {routing} (two VC halves)")
    return ROUTINGS[routing]


def check_pattern(pattern, nodes: int) -> int:
    """The code of traffic pattern ``pattern`` (a name of :data:`PATTERNS` or its code) for ``nodes`` nodes,
    or InputError where BookSim refuses it: a bit pattern needs a power-of-two node count, transpose an even
    power of two.

    >>> check_pattern("transpose", 8)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: pattern: got 'transpose'; allowed: another pattern with 8 nodes (transpose needs 4^m)
    """
    if isinstance(nodes, bool) or not isinstance(nodes, numbers.Integral) or nodes < 1:
        raise InputError("nodes", nodes, "an integer >= 1")
    nodes = int(nodes)
    names = {code: name for name, code in PATTERNS.items()}
    if isinstance(pattern, str):
        code = PATTERNS.get(pattern)
    elif isinstance(pattern, numbers.Integral) and not isinstance(pattern, bool) and int(pattern) in names:
        code = int(pattern)
    else:
        code = None
    if code is None:
        raise InputError("pattern", pattern, "one of " + ", ".join(PATTERNS))
    name = names[code]
    if code in _BIT_PATTERNS and nodes & (nodes - 1):
        raise InputError("pattern", pattern, f"uniform, tornado or neighbor with {nodes} nodes ({name} needs 2^m)")
    if code == TRANSPOSE and (nodes.bit_length() - 1) % 2:
        raise InputError("pattern", pattern, f"another pattern with {nodes} nodes ({name} needs 4^m)")
    return code
