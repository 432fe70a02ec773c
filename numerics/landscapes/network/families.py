"""Structured starts at scale: InfoNCE template *families* on one base code, and the closed-form minimum (A7, A9).

The cluster templates of :mod:`.structured` are enumerated over many spherical codes and excess levels; their
number grows combinatorially with N, and deciding which are equal up to symmetry takes a graph isomorphism
per template. At ``N·d`` in the thousands (``SearchSettings.structured_rule = "families"``) the starts are
instead *families* of perturbations of one base configuration, enumerated up to symmetry by a stated rule:

* **units**: the P disjoint positive pairs, each collapsed on one site, and the negatives-only points, each
  on a site of its own: ``K0 = P + S`` sites. The **base code** is the regular simplex of ``K0`` vertices
  when ``K0 <= d + 1``, else the cross-polytope's first ``K0`` vertices ``e_1, −e_1, e_2, …`` when
  ``K0 <= 2d``, else ``K0`` random unit vectors (seeded); level 0 is the base template itself, which for the
  default pairs with ``N/2 <= d + 1`` is the closed-form global minimum (:mod:`..hessfree.simplex`),
  inserted unperturbed and checked (:func:`closed_form_minimum`).
* **level j** (``1 <= j <= max_excess``), three families: *merged* — ``j`` pairs moved onto the sites of
  other pairs (one class per integer partition of ``j``: how many incomers each host gets); *split* — ``j``
  pairs split antipodally (one point of the pair moved to the antipode of its site); *mixed* — for
  ``j >= 2``, ``a >= 1`` pairs merged onto one host each and ``j − a >= 1`` split; and, when ``P <= d`` and every
  point is paired, *all split*: each pair on its own coordinate axis, its points antipodal (the cross-polytope;
  the trap of the table's N = 2d rows, e.g. N = 8, d = 4, τ = 0.1 at V = 11.79).
* **placement**: which pairs move and which host they join is drawn from ``numpy.random.default_rng([seed,
  2, level, family index])``; on the simplex every placement of a class is equivalent up to the landscape's
  symmetry (the simplex's symmetry group permutes its vertices arbitrarily), so one template per class
  represents it exactly; on the cross-polytope and random codes the draw is one sample of the class (said so
  in the info).
* **budget**: at most ``budget`` templates beyond level 0; when the classes exceed it, levels are taken in
  increasing order and the last level's classes are sampled (seeded), the counts stated. Each template gives
  ``copies`` starts perturbed by ``noise·3^c`` radians RMS per point (copy ``c``), as :mod:`.structured`.

No graph isomorphism and no ``(N·d)²`` array: the cost is the templates' count times ``N·d``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from contrastive_bounds.numerics.landscapes.network.codes import simplex
from contrastive_bounds.numerics.landscapes.network.structured import NOISE_GROWTH, StructuredInfo, pair_units
from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._sphere import project_tangent, retract

__all__ = ["family_starts", "closed_form_minimum", "partitions"]


def partitions(j: int) -> list[tuple[int, ...]]:
    """The integer partitions of ``j >= 1``, parts non-increasing, in reverse lexicographic order."""
    out: list[tuple[int, ...]] = []

    def rec(left: int, cap: int, parts: tuple[int, ...]) -> None:
        if left == 0:
            out.append(parts)
            return
        for p in range(min(left, cap), 0, -1):
            rec(left - p, p, parts + (p,))

    rec(int(j), int(j), ())
    return out


def _base_code(k: int, dim: int, seed: int) -> tuple[np.ndarray, str]:
    """``(k, dim)`` unit vectors and the code's name (module docstring)."""
    if k <= 1:
        return np.eye(1, dim), "one site"
    if k <= dim + 1:
        pts = simplex(k).points
        out = np.zeros((k, dim))
        out[:, : k - 1] = pts
        return out, f"regular simplex, {k} vertices"
    if k <= 2 * dim:
        eye = np.eye(dim)
        rows = [s * eye[i] for i in range(dim) for s in (1.0, -1.0)][:k]
        return np.stack(rows), f"cross-polytope, first {k} of {2 * dim} vertices"
    x = np.random.default_rng([seed, 2, 0]).normal(size=(k, dim))
    return x / np.linalg.norm(x, axis=1, keepdims=True), f"{k} random unit vectors (seeded)"


def closed_form_minimum(landscape: dict[str, Any]) -> dict[str, Any] | None:
    """The closed-form global minimum of an InfoNCE landscape fingerprint, or None where none is known.

    Known (:mod:`..hessfree.simplex`): the pairs are disjoint and cover every point, ``P = N/2 <= d + 1``: collapsed
    pairs on a regular simplex, ``V* = −P/((P − 1)τ') + log(2(P − 1))`` (coupled: ``log(1 + 2(P − 1)e^{−P/((P−1)τ')})``)
    with ``τ' = τ/R²`` on the sphere of radius R.

    Returns:
      ``{"energy", "rule", "pairs"}`` or None (not InfoNCE, pairs not a perfect matching, ``N/2 > d + 1``).
    """
    from contrastive_bounds.numerics.landscapes.hessfree.simplex import infonce_simplex_energy

    if landscape.get("name") != "infonce":
        return None
    n, d = int(landscape["num_points"]), int(landscape["dim"])
    params = landscape.get("params", {})
    pairs = [tuple(int(x) for x in p) for p in params.get("pairs", [])]
    units = pair_units(tuple(pairs), n)
    if units is None or units[1] or n % 2 or n < 4 or n // 2 > d + 1:
        return None
    radius = float(landscape.get("radius", 1.0))
    tau = float(params["tau"]) / radius ** 2
    energy = infonce_simplex_energy(n, d, tau, coupled=bool(params.get("coupled", False)))
    return {"energy": float(energy), "pairs": n // 2,
            "rule": f"collapsed pairs on a regular simplex of {n // 2} vertices (N/2 = {n // 2} "
                    f"{'<=' if n // 2 <= d + 1 else '>'} d + 1 = {d + 1})"}


def _templates(n: int, dim: int, pairs: list[tuple[int, int]], singles: list[int], budget: int, max_excess: int,
               seed: int) -> tuple[np.ndarray, list[dict[str, Any]], str, bool]:
    """Level 0 and the families' templates ``(T, N, d)``, one info row per class, the base code's name and
    whether the base code is the simplex."""
    p, s = len(pairs), len(singles)
    k0 = p + s
    sites, code_name = _base_code(k0, dim, seed)
    simplex_base = code_name.startswith("regular simplex")

    def place(site_of_pair: list[int], split: set[int]) -> np.ndarray:
        z = np.zeros((n, dim))
        for u, (i, j) in enumerate(pairs):
            z[i] = sites[site_of_pair[u]]
            z[j] = -sites[site_of_pair[u]] if u in split else sites[site_of_pair[u]]
        for r, i in enumerate(singles):
            z[i] = sites[p + r]
        return z

    rows: list[dict[str, Any]] = [{"family": "base", "level": 0, "class": "every pair collapsed on its own site",
                                   "templates": 1}]
    out = [place(list(range(p)), set())]
    classes: list[tuple[int, str, tuple, tuple]] = []  # (level, family, merged partition, split count)
    for j in range(1, max_excess + 1):
        for part in partitions(j):
            if j + len(part) <= p:
                classes.append((j, "merged", part, 0))
        if j <= p:
            classes.append((j, "split", (), j))
        for a in range(1, j):
            if a + a + (j - a) <= p:
                classes.append((j, "mixed", (1,) * a, j - a))
    if p <= dim and not s:
        classes.append((p, "all split", (), p))
    chosen = classes
    sampled = False
    if len(classes) > budget:
        sampled = True
        rng = np.random.default_rng([seed, 2, 99])
        keep = sorted(rng.choice(len(classes), size=budget, replace=False)) if budget > 0 else []
        chosen = [classes[i] for i in keep]
    for idx, (j, fam, part, nsplit) in enumerate(chosen):
        if fam == "all split":  # every pair on its own axis, its two points antipodal: the cross-polytope
            z = np.zeros((n, dim))
            for u, (a, b) in enumerate(pairs):
                z[a, u], z[b, u] = 1.0, -1.0
            out.append(z)
            rows.append({"family": fam, "level": j, "class": f"all {p} pairs split antipodally on {p} orthogonal axes "
                         "(the cross-polytope)", "templates": 1, "mode": "exact representative"})
            continue
        rng = np.random.default_rng([seed, 2, j, idx])
        order = [int(x) for x in rng.permutation(p)]
        movers = order[: sum(part)]
        hosts = order[sum(part): sum(part) + len(part)]
        splitters = order[sum(part) + len(part): sum(part) + len(part) + nsplit]
        site_of = list(range(p))
        m = iter(movers)
        for h, count in zip(hosts, part):
            for _ in range(count):
                site_of[next(m)] = h
        out.append(place(site_of, set(splitters)))
        what = {"merged": f"{j} pair(s) moved onto other pairs' sites, incomers per host {list(part)}",
                "split": f"{j} pair(s) split antipodally",
                "mixed": f"{sum(part)} pair(s) merged onto one host each and {nsplit} split antipodally"}[fam]
        rows.append({"family": fam, "level": j, "class": what, "templates": 1,
                     "mode": "exact representative (simplex: every placement equivalent)" if simplex_base
                     else "one seeded placement of the class"})
    note_mode = f"{len(chosen)} of {len(classes)} classes sampled (budget {budget})" if sampled else \
        f"all {len(classes)} classes of levels 1..{max_excess}"
    return np.stack(out), rows, f"{code_name}; {note_mode}", sampled


def family_starts(spec: Any, *, budget: int, max_excess: int, copies: int, noise: float, seed: int
                  ) -> tuple[np.ndarray, StructuredInfo]:
    """Perturbed family starts (module docstring), ``(1 + T·copies, N, d)`` float64, with their info: row 0 is
    the unperturbed base template (the closed-form minimum where one is known), then ``copies`` perturbed
    copies of each family template (copy ``c`` perturbed by ``noise·3^c`` radians RMS per point, seeded by
    ``(seed, 3, c)``). A budget of 0 switches them off (the closed-form minimum too); a spec without disjoint
    positive pairs gives no starts (info.note says so).

    Raises:
      X64DisabledError: JAX's x64 mode is off (the perturbed copies are projected and retracted in float64)."""
    from contrastive_bounds.numerics.landscapes.network.structured import supports_structured

    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.families.family_starts")
    info = StructuredInfo(budget=int(budget))
    n, dim = spec.num_points, spec.dim
    sym = spec.symmetry
    if budget <= 0 or copies <= 0:
        info.note = "structured starts switched off"
        return np.zeros((0, n, dim)), info
    units = pair_units(tuple(sym.pairs), n) if supports_structured(sym) else None
    if units is None:
        info.note = "no template families: the landscape has no disjoint positive pairs (not InfoNCE over a matching)"
        return np.zeros((0, n, dim)), info
    tmpl, rows, code, sampled = _templates(n, dim, list(units[0]), list(units[1]), int(budget), int(max_excess), seed)
    info.codes, info.code_names, info.levels = 1, [code.split(";")[0]], rows
    info.templates = info.distinct = int(tmpl.shape[0])
    info.complete_levels = [] if sampled else list(range(max_excess + 1))
    out = [tmpl[:1]]
    fam = tmpl[1:]
    for c in range(copies):
        if not len(fam):
            break
        rng = np.random.default_rng([seed, 3, c])
        xi = rng.normal(size=fam.shape) * noise * NOISE_GROWTH ** c / math.sqrt(max(dim - 1, 1))
        out.append(retract(fam, project_tangent(fam, xi)))
    starts = np.concatenate(out)
    info.starts = int(starts.shape[0])
    info.note = (f"template families on one base code ({code}): the base template unperturbed, then "
                 f"{len(fam)} family templates (merged, split, mixed pairs at levels 1..{max_excess}; all pairs split where "
                 f"N/2 <= d) x {copies} "
                 f"perturbed copies; distinct up to symmetry by construction" + ("" if code.startswith("regular simplex")
                                                                                else " of the class, not of the placement"))
    return starts, info
