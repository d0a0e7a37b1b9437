"""How BookSim2 numbers and wires its k-ary n-fly, k-ary n-mesh, k-ary n-cube (torus) and k-ary n-tree, as
arrays a Numba kernel of its input-queued VC router reads (BookSim2 @ 28f43299: ``networks/fly.cpp``,
``networks/kncube.cpp``, ``networks/fattree.cpp``; notes ``booksim/topologies_traffic.md`` §2-§4).

Router ids, node ids and port numbers are BookSim's, so a route (:mod:`switchq.validate.arch.iq_routes`) or a
trace reads the same in both. A port's number is the order in which BookSim attaches its channel.

- **fly** (``KNFly``): k^n nodes, n stages of k^(n-1) k x k routers, router ``stage k^(n-1) + addr``. Stage 0
  router ``addr`` takes node ``addr k + p`` on input p; the last stage ejects node ``addr k + p`` on output p.
  Output q of (s, a) feeds (s+1, b) on input p, where b is a with its base-k digit at k^(n-2-s) set to q and p
  is the digit a had there: stage s sets the node address's digit n-1-s, so dest-tag routing reaches any node
  in n routers. One-way: no link goes back a stage.
- **mesh / torus** (``KNCube``): k^n routers, router i serves node i. Port 2d goes +1 in dimension d (digit d of
  the id, least significant first), port 2d+1 goes -1; input 2d comes from the +1 neighbour, input 2d+1 from
  the -1 neighbour; port 2n injects and ejects node i. BookSim builds the mesh **with the torus's wrap-around
  links** (dimension-order mesh routing never takes them), so both wire the same; only latency differs.
- **fattree** (``FatTree``, a k-ary n-tree): k^n nodes, n levels of k^(n-1) routers, router ``level k^(n-1) +
  pos`` with level 0 the roots and n-1 the leaves. Ports 0..k-1 face down, k..2k-1 up; roots have only the k
  down ports. Leaf ``pos`` port p carries node ``pos k + p``. Down port p of (L, pos) and up port k + q of
  (L+1, pos') are the two ends of one link each way, where pos' is pos with its base-k digit n-2-L set to p and
  q is the digit pos had there: routers of adjacent levels meet where their positions differ in that one digit.

Channel latencies are BookSim's (credits return over a channel of the same latency): every router-to-router
channel 1 cycle, except the torus's 2 with ``use_noc_latency`` (BookSim's default 1: a torus's links are
longer; every link, not only the wrap links); injection and ejection 1.

Not modelled: BookSim's other topologies (cmesh, flatfly, qtree, tree4, anynet, dragonfly), the ``xr``
concentration, and k = 1 (which BookSim builds as a degenerate network of self-loops).

Cost: seven (R, P) int64 arrays, 56 R P bytes (a 32 x 32 torus: 0.5 MB; a 2-ary 20-cube, 2 GB).

Examples
--------
>>> w = wiring("mesh", 4, 2)
>>> w.nodes, w.routers, w.ports
(16, 16, 5)
>>> int(w.out_router[5, 0]), int(w.out_port[5, 0]), int(w.out_node[5, 4])   # router 5 +x feeds 6's input 1
(6, 1, 5)
>>> t = wiring("fattree", 2, 3)
>>> t.routers, t.ports, t.out_router[0].tolist()                          # a root: two children, no parents
(12, 4, [4, 6, -1, -1])
>>> wiring("fly", 2, 21)
Traceback (most recent call last):
...
switchq.errors.InputError: n: got 21; allowed: an integer in [1, 20] for k = 2 (k^n nodes at most 1048576)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _check
from .iq_router import TOPOLOGIES

__all__ = ["Wiring", "TOPOLOGIES", "MAX_NODES", "wiring"]

MAX_NODES = 1 << 20


class Wiring(NamedTuple):
    """A network as BookSim2 builds it: ``R`` routers of at most ``P`` ports, ``N`` nodes.

    Arrays are int64. Output port o of router r feeds input port ``out_port[r, o]`` of router ``out_router[r, o]``
    (-1 where o ejects or is unused) or ejects to node ``out_node[r, o]`` (else -1), over a channel of
    ``latency[r, o]`` cycles (0: unused). ``in_used[r, p]`` is 1 where input p exists (fed by a router or a
    node). Node i injects into input ``inj_port[i]`` of ``inj_router[i]`` and is ejected to by output
    ``ej_port[i]`` of ``ej_router[i]``.
    """

    topology: str
    k: int
    n: int
    nodes: int
    routers: int
    ports: int
    out_router: np.ndarray
    out_port: np.ndarray
    out_node: np.ndarray
    latency: np.ndarray
    in_used: np.ndarray
    inj_router: np.ndarray
    inj_port: np.ndarray
    ej_router: np.ndarray
    ej_port: np.ndarray


def wiring(topology: str, k: int, n: int, use_noc_latency: bool = True) -> Wiring:
    """The wiring of BookSim2's ``topology`` with radix ``k`` and ``n`` dimensions, stages or levels.

    ``topology``: "fly", "mesh", "torus" or "fattree"; ``k`` >= 2; ``n`` >= 1 with k^n nodes at most 2^20
    (BookSim accepts n = 1 everywhere: one k x k router for fly and fattree, a ring for torus and mesh).
    ``use_noc_latency``: BookSim's option of that name (default on), which makes a torus link 2 cycles.
    """
    topology = _check.choice("topology", topology, TOPOLOGIES)
    k = _check.integer("k", k, 2, MAX_NODES)
    max_n = 1
    while k ** (max_n + 1) <= MAX_NODES:
        max_n += 1
    n = _check.integer("n", n, 1, None)
    if n > max_n:
        raise _check.InputError("n", n, f"an integer in [1, {max_n}] for k = {k} (k^n nodes at most {MAX_NODES})")
    if not isinstance(use_noc_latency, (bool, np.bool_)) and use_noc_latency not in (0, 1):
        raise _check.InputError("use_noc_latency", use_noc_latency, "True or False")
    if topology == "fly":
        return _fly(k, n)
    if topology == "fattree":
        return _fattree(k, n)
    return _cube(topology, k, n, 2 if topology == "torus" and use_noc_latency else 1)


def _blank(routers: int, ports: int, nodes: int):
    """Arrays of a network with nothing attached yet: every port unused."""
    out_router = np.full((routers, ports), -1, dtype=np.int64)
    return (out_router, out_router.copy(), out_router.copy(), np.zeros((routers, ports), dtype=np.int64),
            np.zeros((routers, ports), dtype=np.int64), np.zeros(nodes, dtype=np.int64))


def _digit(x, place: int, k: int):
    """The base-k digit of ``x`` worth ``place`` (a power of k)."""
    return (x // place) % k


def _cube(topology: str, k: int, n: int, link_latency: int) -> Wiring:
    nodes = k ** n
    ports = 2 * n + 1
    out_router, out_port, out_node, latency, in_used, _ = _blank(nodes, ports, nodes)
    ids = np.arange(nodes, dtype=np.int64)
    for d in range(n):
        place = k ** d
        digit = _digit(ids, place, k)
        # Neighbours wrap in the mesh too: BookSim wires both alike.
        out_router[:, 2 * d] = np.where(digit == k - 1, ids - (k - 1) * place, ids + place)
        out_router[:, 2 * d + 1] = np.where(digit == 0, ids + (k - 1) * place, ids - place)
        # A +1-going channel arrives from the receiver's -1 side (its input 2d + 1), and the reverse.
        out_port[:, 2 * d] = 2 * d + 1
        out_port[:, 2 * d + 1] = 2 * d
    latency[:, :2 * n] = link_latency
    out_node[:, 2 * n] = ids
    latency[:, 2 * n] = 1
    in_used[:] = 1
    local = np.full(nodes, 2 * n, dtype=np.int64)
    return Wiring(topology, k, n, nodes, nodes, ports, out_router, out_port, out_node, latency, in_used,
                  ids.copy(), local, ids.copy(), local.copy())


def _fly(k: int, n: int) -> Wiring:
    nodes = k ** n
    per_stage = k ** (n - 1)
    routers = n * per_stage
    out_router, out_port, out_node, latency, in_used, _ = _blank(routers, k, nodes)
    addr = np.arange(per_stage, dtype=np.int64)
    for s in range(n - 1):
        place = k ** (n - 2 - s)
        here = _digit(addr, place, k)                     # the digit this stage's outputs choose
        for q in range(k):
            out_router[s * per_stage + addr, q] = (s + 1) * per_stage + addr + (q - here) * place
            out_port[s * per_stage + addr, q] = here
    last = (n - 1) * per_stage + addr
    node = addr[:, None] * k + np.arange(k)[None, :]
    out_node[last, :] = node
    latency[:] = 1
    in_used[:] = 1
    ids = np.arange(nodes, dtype=np.int64)
    return Wiring("fly", k, n, nodes, routers, k, out_router, out_port, out_node, latency, in_used,
                  ids // k, ids % k, (n - 1) * per_stage + ids // k, ids % k)


def _fattree(k: int, n: int) -> Wiring:
    nodes = k ** n
    per_level = k ** (n - 1)
    routers = n * per_level
    ports = 2 * k if n > 1 else k                           # a one-level tree is one k-port router
    out_router, out_port, out_node, latency, in_used, _ = _blank(routers, ports, nodes)
    pos = np.arange(per_level, dtype=np.int64)
    for level in range(n - 1):
        place = k ** (n - 2 - level)
        here = _digit(pos, place, k)                      # which up port of the child this link reaches
        upper = level * per_level + pos
        for p in range(k):
            lower = (level + 1) * per_level + pos + (p - here) * place
            out_router[upper, p] = lower
            out_port[upper, p] = k + here
            out_router[lower, k + here] = upper
            out_port[lower, k + here] = p
    leaf = (n - 1) * per_level + pos
    out_node[leaf, :k] = pos[:, None] * k + np.arange(k)[None, :]
    used = (out_router >= 0) | (out_node >= 0)
    latency[used] = 1
    # Every port in use is an input too: links run both ways and a leaf's node ports inject.
    in_used[used] = 1
    ids = np.arange(nodes, dtype=np.int64)
    leaf_of = (n - 1) * per_level + ids // k
    return Wiring("fattree", k, n, nodes, routers, ports, out_router, out_port, out_node, latency, in_used,
                  leaf_of, ids % k, leaf_of.copy(), ids % k)
