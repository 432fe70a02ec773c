"""The main job's reach into the network search: one S² InfoNCE network against its reference values (docs/theorems.md A9, A5).

Check ``A9.s2_trap_network``: decoupled finite-τ InfoNCE over the pairs (0, 1), (2, 3), (4, 5) on ``(S²)^6`` at
τ = 0.1 (docs/theorems.md A7), searched by the library (:func:`~contrastive_bounds.numerics.landscapes.network.network_for`,
with the settings of the ``A8.6_dimension`` row of the same landscape, so the main job searches it once). Its trap —
the three pairs split antipodally along orthogonal axes, ``V = 1/τ + ln 4`` — is reached by no random start, only
by the structured starts; its lowest exit is found only by eigenvector following out of the trap (not from the
global minimum's side, nor by the band between the two): a search that skips either has a different network.
The kinetic-transition-network construction of H* is Becker & Karplus, J. Chem. Phys. 106 (1997) 1495 and Wales,
*Energy Landscapes* (Cambridge, 2003); the prefactor modulo symmetry Bovier, Gayrard & Klein, J. Eur. Math. Soc. 6
(2004) Thm 3.2 with the orbit volumes of docs/theorems.md A9.

Every condition is deterministic (no p-value; a failed one is ``violated``):

* ``reference`` — the network is complete and equals docs/reference-values.md C15: the two minima (energies
  ``−3/(2τ) + ln 4`` and ``1/τ + ln 4``, multiplicities 1 and 1), H* = 0.110586165593, and the trap's escape
  saddles (barriers 0.110586165593 and 0.132117105512 with 6 and 8 copies per trap configuration) and their
  Eyring–Kramers log prefactors;
* ``independent`` — every minimum and verified transition state re-verified with a separately written numpy InfoNCE
  (:func:`~._independent_landscapes.infonce_energy`) and a finite-difference Hessian off the ``O(d)`` orbit
  (:mod:`._independent_networks`): the stored energy, a vanishing gradient, index 0 or exactly 1, no zero mode beyond
  the orbit's, the stored eigenvalues; every multiplicity recounted from Gram matrices over the pair-preserving
  permutations; each escape saddle's copy count ``n_s = mult(s)·e_s/mult(x)`` and log prefactor
  ``log(n_s·|λ₁(s)|/(2π)·sqrt(det′H(x)/|det′H(s)|)·ω_s/ω_x)`` recomputed in closed form from those spectra and counts
  against :func:`~contrastive_bounds.numerics.landscapes.network_kramers.network_trap`;
* ``exact`` — the closure the network claims is the one its effort shows: its eigenvector-following searches are
  twice (both signs) the directions the documented rule gives for the finite-difference spectra of its minima, and
  every one of them was refined (refinements are at least the searches).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from contrastive_bounds.properties.checks._outcome import Outcome
from contrastive_bounds.properties.checks._framework import check

__all__ = ["s2_trap_network", "REFERENCE", "LANDSCAPE", "ENERGY_ATOL", "PREFACTOR_ATOL", "EIGENVALUE_RTOL",
           "GRADIENT_TOL", "network_of"]

#: the landscape of docs/reference-values.md C15 (the default pairs (0, 1), (2, 3), (4, 5))
LANDSCAPE = {"num_points": 6, "dim": 3, "tau": 0.1}
_PAIRS = ((0, 1), (2, 3), (4, 5))
#: docs/reference-values.md C15 (energies in closed form; the search values with the tolerances below)
REFERENCE: dict[str, Any] = {
    "minima": [(-1.5 / 0.1 + math.log(4.0), 1), (1 / 0.1 + math.log(4.0), 1)],  # (energy, multiplicity), ascending
    "critical_height": 0.110586165593054,
    "escape_saddles": [(0.110586165593054, 6), (0.132117105512348, 8)],  # (barrier, copies n_s), lowest first
    "log_prefactors": [4.8073468, 5.1864562],
}
#: tolerances: energies and barriers (absolute; refined critical points carry ~1e-12), log prefactors (absolute, the
#: finite-difference spectra are good to ~1e-8 relative), eigenvalues (relative), Riemannian gradient norm
ENERGY_ATOL = 1e-9
PREFACTOR_ATOL = 1e-6
EIGENVALUE_RTOL = 1e-6
GRADIENT_TOL = 1e-6


def _validate(params: Mapping[str, Any]) -> None:
    from contrastive_bounds.theory._domains import check_int

    check_int("starts", params["starts"], 1, 100_000)
    check_int("search_seed", params["search_seed"], 0, None)


def network_of(params: Mapping[str, Any]) -> tuple[Any, Any]:
    """``(spec, NetworkResult)`` of the C15 landscape with ``params["starts"]`` random starts and search seed
    ``params["search_seed"]``: the row settings of :mod:`._landscape_rows` (those of the ``A8.6_dimension`` row of
    this landscape), searched once per process."""
    from contrastive_bounds.properties.checks._landscape_rows import row_network

    return row_network({**LANDSCAPE, "starts": int(params["starts"]), "chunk": 8,
                        "search_seed": int(params["search_seed"])}, 0)


def _close(a: float, b: float, tol: float) -> bool:
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= tol


def _spectra(res: Any) -> tuple[dict[tuple[str, int], Any], list[str], list[dict[str, Any]]]:
    """Finite-difference spectra of every minimum and verified transition state, the problems found, the table."""
    import contrastive_bounds.properties.checks._independent_networks as ind
    from contrastive_bounds.properties.checks._independent_landscapes import infonce_energy

    tau = LANDSCAPE["tau"]
    energy = lambda z: infonce_energy(z, tau, _PAIRS)  # noqa: E731
    perms = ind.pair_permutations(LANDSCAPE["num_points"], _PAIRS)
    spectra, problems, table = {}, [], []
    records = [("minimum", m, 0) for m in res.minima] + [("transition state", t, 1) for t in res.transition_states]
    for kind, rec, want in records:
        cs = ind.critical_spectrum(energy, rec.z)
        spectra[(kind, rec.id)] = cs
        e = energy(rec.z)
        mult = ind.multiplicity_by_gram(rec.z, perms)
        stored = list(rec.eigenvalues) if kind == "minimum" else [rec.eigenvalue]
        k = min(len(stored), cs.eigenvalues.size)
        eig_err = max((abs(a - b) / max(1.0, abs(b)) for a, b in zip(cs.eigenvalues[:k], stored[:k])), default=math.inf)
        where = f"{kind} {rec.label} (V = {rec.energy:.10g})"
        if not _close(e, rec.energy, ENERGY_ATOL * max(1.0, abs(e))):
            problems.append(f"{where}: numpy energy {e:.15g}")
        if not cs.gradient_norm <= GRADIENT_TOL:
            problems.append(f"{where}: |grad V| = {cs.gradient_norm:.3g} by central differences (not a critical point)")
        if cs.index != want:
            problems.append(f"{where}: index {cs.index} by the finite-difference Hessian (a "
                            f"{'minimum' if want == 0 else 'transition state'} has {want})")
        if cs.zero_modes or cs.orbit_dim != cs.orbit_dim_formula:
            problems.append(f"{where}: {cs.zero_modes} zero mode(s) beyond the orbit's {cs.orbit_dim} "
                            f"(rank formula {cs.orbit_dim_formula})")
        if not eig_err <= EIGENVALUE_RTOL:
            problems.append(f"{where}: stored eigenvalues {np.round(stored[:k], 6).tolist()} vs finite differences "
                            f"{np.round(cs.eigenvalues[:k], 6).tolist()}")
        if mult != rec.multiplicity:
            problems.append(f"{where}: multiplicity {rec.multiplicity} but {mult} distinct Gram matrices")
        table.append({"critical point": rec.label, "kind": kind, "V": rec.energy, "V (numpy)": e,
                      "|grad V| (differences)": cs.gradient_norm, "index (differences)": cs.index,
                      "lowest eigenvalue": float(cs.eigenvalues[0]), "multiplicity": rec.multiplicity,
                      "multiplicity (Gram)": mult, "found by": rec.found_by})
    return spectra, problems, table


def _prefactors(res: Any, trap: Any, spectra: dict[tuple[str, int], Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """Each escape saddle's copies and log prefactor recomputed in closed form (independent_networks), beside the
    values of ``trap`` (network_trap)."""
    import contrastive_bounds.properties.checks._independent_networks as ind

    perms = ind.pair_permutations(LANDSCAPE["num_points"], _PAIRS)
    by_id = {m.id: m for m in res.minima}
    ts_by_id = {t.id: t for t in res.transition_states}
    x = by_id[trap.minimum]
    mult_x = ind.multiplicity_by_gram(x.z, perms)
    omega_x, _ = ind.orbit_volume(x.z)
    lam_x = spectra[("minimum", x.id)].eigenvalues
    rows, problems = [], []
    for s in trap.saddles:
        ts = ts_by_id[s.ts]
        ends = sum(1 for m in ts.minima if m == trap.minimum)
        copies = ind.multiplicity_by_gram(ts.z, perms) * ends / mult_x
        omega_s, _ = ind.orbit_volume(ts.z)
        try:
            lp = ind.eyring_kramers_log_prefactor(copies, spectra[("transition state", ts.id)].eigenvalues, lam_x,
                                                   omega_s, omega_x)
        except ValueError as exc:
            lp = math.nan
            problems.append(f"escape saddle {ts.label}: no closed-form prefactor ({exc})")
        got = math.nan if s.log_prefactor is None else float(s.log_prefactor)
        if copies != s.count:
            problems.append(f"escape saddle {ts.label}: {s.count:g} copies per trap configuration, the recount gives "
                            f"{copies:g} (mult(s) e_s / mult(x))")
        if not _close(got, lp, PREFACTOR_ATOL):
            problems.append(f"escape saddle {ts.label}: log prefactor {got:.10g}, closed form {lp:.10g}")
        rows.append({"saddle": ts.label, "barrier": s.barrier, "copies": s.count, "copies (recount)": copies,
                     "log prefactor": got, "log prefactor (closed form)": lp})
    return rows, problems


def _closure(res: Any, spectra: dict[tuple[str, int], Any]) -> tuple[bool, str]:
    import contrastive_bounds.properties.checks._independent_networks as ind

    dirs = {m.label: ind.following_directions(spectra[("minimum", m.id)].eigenvalues) for m in res.minima}
    e = res.effort
    want = 2 * sum(dirs.values())
    ok = res.closed and e.single_ended == want and e.refinements >= e.single_ended
    detail = (f"{e.single_ended} eigenvector-following searches for 2 x {sum(dirs.values())} directions "
              f"({', '.join(f'{k}: {v}' for k, v in dirs.items())}), {e.refinements} refinements; closed: {res.closed}")
    return ok, detail


_QUICK = {"starts": 128, "search_seed": 0}


@check("A9.s2_trap_network", theorem="A9 (H* from a kinetic transition network) + A5 (Eyring-Kramers modulo symmetry) "
       "on InfoNCE N = 6, S², tau = 0.1 (docs/reference-values.md C15)", paper="A",
       statement="the library's network of a landscape whose trap only structured starts find and whose exit only "
                 "following out of the trap finds is complete and equals its reference values (minima, H*, escape "
                 "saddles, prefactors); every critical point, multiplicity and prefactor agrees with a separate numpy "
                 "implementation, and the closure's searches are those its minima's spectra require",
       quick=_QUICK, thorough={**_QUICK, "starts": 256}, validate=_validate)
def s2_trap_network(params: Mapping[str, Any], seed: int) -> Outcome:
    from contrastive_bounds.numerics.landscapes.network_kramers import network_trap

    spec, res = network_of(params)
    ref = REFERENCE
    spectra, cp_problems, table = _spectra(res)
    trap = network_trap(res, spec)
    minima = sorted(res.minima, key=lambda m: m.energy)
    got_minima = [(m.energy, m.multiplicity) for m in minima]
    minima_ok = len(got_minima) == len(ref["minima"]) and all(
        _close(e, re, ENERGY_ATOL) and k == rk for (e, k), (re, rk) in zip(got_minima, ref["minima"]))
    h = float(res.critical_height)
    saddle_rows, pf_problems = ([], ["no trap (barrier-free within this search)"]) if trap is None else \
        _prefactors(res, trap, spectra)
    escapes = [] if trap is None else [(s.barrier, s.count) for s in trap.saddles]
    escapes_ok = len(escapes) == len(ref["escape_saddles"]) and all(
        _close(b, rb, ENERGY_ATOL) and c == rc for (b, c), (rb, rc) in zip(escapes, ref["escape_saddles"]))
    lps = [] if trap is None or not trap.non_degenerate else trap.log_prefactors
    lps_ok = len(lps) == len(ref["log_prefactors"]) and all(_close(a, b, PREFACTOR_ATOL)
                                                             for a, b in zip(lps, ref["log_prefactors"]))
    closure_ok, closure_detail = _closure(res, spectra)
    trap_rec = None if trap is None else next(m for m in res.minima if m.id == trap.minimum)
    exits = "; ".join(f"barrier {b:.10g} ({c:g} copies)" for b, c in escapes) or "none"
    closed_form = ", ".join(f"{r['log prefactor (closed form)']:.8g}" for r in saddle_rows) or "none"
    text = (f"{spec.description}: network {res.status} ({len(res.minima)} minima, {len(res.transition_states)} verified "
            f"transition states); H* = {h:.12g} (reference {ref['critical_height']:.12g}, difference "
            f"{abs(h - ref['critical_height']):.1e}); trap V = "
            + ("none" if trap_rec is None else f"{trap_rec.energy:.10g} found by {trap_rec.found_by}")
            + f"; its escape saddles: {exits}; log prefactors {', '.join(f'{x:.8g}' for x in lps) or 'none'} "
            f"(closed form: {closed_form}); "
            f"every critical point re-verified by a numpy InfoNCE and finite-difference Hessians off the O(3) orbit; "
            f"closure: {closure_detail}")
    out = Outcome("holds", text, bound=ref["critical_height"], empirical=h, interval=(h, h),
                  ratio=h / ref["critical_height"], samples=1, table=table,
                  reason="deterministic: reference values (docs/reference-values.md C15) and second implementations; "
                         "no stochastic test",
                  details={"status": res.status, "closure": res.closure, "effort": res.effort_text(),
                           "escape_saddles": saddle_rows, "trap": None if trap is None else
                           {k: v for k, v in trap.to_dict().items() if k != "z"},
                           "problems": cp_problems + pf_problems, "settings": res.settings})
    out.require("reference", "the network is complete (closed under single-ended exploration, the trap connected)",
                res.complete and res.status == "complete", res.status)
    out.require("reference", "its minima are C15's: energies -3/(2 tau) + ln 4 and 1/tau + ln 4 (1e-9), "
                "multiplicities 1 and 1", minima_ok, "; ".join(f"V = {e:.12g} (x{k})" for e, k in got_minima))
    out.require("reference", f"H* equals C15's {ref['critical_height']:.12g} to {ENERGY_ATOL:g}",
                _close(h, ref["critical_height"], ENERGY_ATOL), f"H* = {h:.15g}")
    out.require("reference", "the trap's escape saddles are C15's (barriers to 1e-9, copies per trap configuration)",
                escapes_ok, exits)
    out.require("reference", f"the trap's Eyring-Kramers log prefactors are C15's to {PREFACTOR_ATOL:g}", lps_ok,
                ", ".join(f"{x:.10g}" for x in lps) or (trap.prefactor_reason if trap is not None else "no trap"))
    out.require("independent", "every minimum and verified transition state is a critical point of a separate numpy "
                "InfoNCE with its stored energy, index 0 or 1, no zero mode beyond the O(3) orbit, its stored eigenvalues "
                "and its multiplicity (Gram matrices over the 48 pair-preserving permutations)", not cp_problems,
                "; ".join(cp_problems[:4]) if cp_problems else f"{len(table)} critical points")
    out.require("independent", "each escape saddle's copies mult(s) e_s / mult(x) and log prefactor equal the closed "
                "form from the finite-difference spectra, recounted multiplicities and orbit volumes",
                not pf_problems, "; ".join(pf_problems[:4]) if pf_problems else
                f"{len(saddle_rows)} saddles, largest log difference "
                f"{max((abs(r['log prefactor'] - r['log prefactor (closed form)']) for r in saddle_rows), default=0.0):.1e}")
    out.require("exact", "the closure's eigenvector-following searches are both signs of every direction its minima's "
                "spectra require, and each was refined", closure_ok, closure_detail)
    return out
