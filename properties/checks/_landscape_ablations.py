"""Checks of the seed notes' ablation claims on InfoNCE landscape networks (docs/theorems.md A8.6–A8.8, A9).

Each check runs the rows of one ablation of the built-in sweep spec ``ablations`` in this process (the
check's ``profile`` parameter names the spec's profile: ``quick`` in the main job's quick profile,
``medium`` in its thorough one), or reads them from a finished ``contrastive-bounds sweep ablations``
run (``sweep = FOLDER``: the full grid, profile ``thorough``, runs distributed), and returns

* the claim's verdict, *supported* / *refuted* / *mixed* (:func:`._ablation_rows.trend_verdict`: the
  data decide; nothing is forced), in the summary and in ``details["claim_verdict"]``;
* the table across the grid (every H* with the search effort behind it: "barrier-free" is always
  "within this search") and a figure;
* the check's own verdict on the soundness of that evidence. Deterministic conditions, for every row
  (:mod:`._independent_landscapes`): H*, D, the global energy and the status agree with the row's own table
  of minima (``exact``); every stored minimum's energy equals a separately written numpy InfoNCE at its
  stored coordinates (relative 1e-9) and is a critical point of it (Riemannian gradient by central
  differences <= 1e-6·R²/τ) (``independent``); A8.8: the radius-R potential equals the τ/R² one
  (``exact``). Any of them failing is ``violated`` whatever else holds: data that would show the code
  disagreeing with its statement. The stochastic test of A8.7: each Arrhenius interval (99.9 %) must
  contain the network's barrier of the trap (p-values for Holm, Bonferroni over the rows).
  ``inconclusive`` when a network is incomplete (its H* is a lower bound).

Reading of "curvature" (A8.8): the same InfoNCE objective with every embedding on the sphere of radius
R (curvature 1/R²). Similarities become ``R²·cos``, so the potential on unit directions is exactly
the one at ``τ/R²`` (checked here at random configurations and at every critical point of the
radius-R network), and Langevin on the radius-R sphere is the unit-sphere chain on the clock
``t/R²`` (:mod:`contrastive_bounds.numerics.langevin.network_runs`). The schedule ``T = c/log(t + t0)``
runs on the radius-R clock from the trap of the radius-1 landscape.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from contrastive_bounds.properties.checks._ablation_rows import (
    H_TIE_RTOL,
    ablation_rows,
    combine_verdicts,
    effort_columns,
    finite,
    network_ok,
    trend_verdict,
)
from contrastive_bounds.properties.checks._outcome import Outcome, PlotSpec, Series
from contrastive_bounds.properties.checks._framework import check

__all__ = ["a86_dimension", "a87_negatives", "a88_curvature", "radius_equivalence", "minima_agreement",
           "arrhenius_p_value", "grid_text", "FULL_GRID_COMMAND", "ENERGY_RTOL"]

PAPER_A = "A"


def _validate(params: Mapping[str, Any]) -> None:
    if params.get("profile") not in ("quick", "medium", "thorough", "default"):
        raise ValueError(f"profile={params.get('profile')!r} must be 'quick', 'medium', 'thorough' or 'default' "
                         "(a profile of spec 'ablations')")
    if not isinstance(params.get("sweep", ""), str):
        raise ValueError("sweep must be a folder path (a string) or ''")


def _series(rows: list[dict[str, Any]], key: Any) -> dict[Any, list[dict[str, Any]]]:
    out: dict[Any, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(key(r), []).append(r)
    return out


def _search_seed(r: dict[str, Any]) -> int:
    s = finite(r.get("search_seed"))
    return int(s) if s is not None else int(r.get("seed", 0))


def _tie(rows: list[dict[str, Any]]) -> float:
    return H_TIE_RTOL * max(1.0, max(abs(finite(r.get("v_min")) or 0.0) for r in rows))


def _soundness(rows: list[dict[str, Any]], problems: list[str]) -> str:
    """The test's verdict: violated on a simulation contradicting its network, inconclusive on an
    incomplete network or a failed row, else holds (the deterministic conditions come on top)."""
    if problems:
        return "violated"
    return "holds" if all(network_ok(r) for r in rows) and all(r.get("verdict") != "error" for r in rows) else "inconclusive"


#: Tolerances of the independent re-evaluation of a row's minima (relative energy; gradient per R²/τ).
ENERGY_RTOL = 1e-9
GRADIENT_TOL = 1e-6


def minima_agreement(rows: list[dict[str, Any]]) -> tuple[list[str], int]:
    """Every stored minimum of every row against the separately written InfoNCE energy
    (:func:`~._independent_landscapes.infonce_energy`): its energy to :data:`ENERGY_RTOL` and stationarity
    (:func:`~._independent_landscapes.tangent_gradient_norm` <= :data:`GRADIENT_TOL`·R²/τ). Returns
    ``(problems, minima compared)``; a minimum without coordinates is a problem (nothing to compare)."""
    from contrastive_bounds.properties.checks._independent_landscapes import infonce_energy, tangent_gradient_norm

    problems, count = [], 0
    for r in rows:
        tau, radius = float(r["tau"]), float(r.get("radius", 1.0) or 1.0)
        pairs = r.get("pairs")

        def energy(z: Any, tau: float = tau, radius: float = radius, pairs: Any = pairs, coupled: bool = bool(r.get("coupled"))) -> float:
            return infonce_energy(z, tau, pairs, coupled=coupled, radius=radius)

        where = f"N={r['num_points']}, d={r['dim']}, tau={tau:g}" + (f", R={radius:g}" if radius != 1.0 else "")
        for m in r.get("details", {}).get("minima", []):
            if "z" not in m:
                problems.append(f"{where}: a minimum (energy {m.get('energy')}) has no coordinates to re-evaluate")
                continue
            count += 1
            e = energy(m["z"])
            if abs(e - float(m["energy"])) > ENERGY_RTOL * max(1.0, abs(e)):
                problems.append(f"{where}: stored minimum energy {float(m['energy']):.15g} vs {e:.15g} recomputed")
            g = tangent_gradient_norm(energy, m["z"])
            if g > GRADIENT_TOL * radius * radius / tau:
                problems.append(f"{where}: the stored minimum at energy {e:.10g} is not a critical point (|grad| {g:.3g})")
    return problems, count


def _network_conditions(out: Outcome, rows: list[dict[str, Any]]) -> None:
    """The deterministic conditions every ablation row must meet (see the module docstring)."""
    from contrastive_bounds.properties.checks._independent_landscapes import table_consistency

    table = [f"N={r['num_points']}, d={r['dim']}: {p}" for r in rows
             for p in table_consistency(r, H_TIE_RTOL * max(1.0, abs(finite(r.get("v_min")) or 0.0)))]
    out.require("exact", "every row's H*, D, global energy and status agree with its own table of minima", not table,
                "; ".join(table[:4]) if table else f"{len(rows)} rows")
    wrong, count = minima_agreement(rows)
    out.require("independent", "every stored minimum's energy equals a separately written InfoNCE at its coordinates, "
                "and is a critical point of it", not wrong, "; ".join(wrong[:4]) if wrong else f"{count} minima")


def _h_trend(rows: list[dict[str, Any]], x: str, label: Any) -> tuple[dict[str, Any], list[str]]:
    """Claim verdict per series of H* against ``x``; with several seeds per point, the largest H* any
    seed's network found (every barrier in it is between verified critical points) — and a note for
    each point where the seeds disagree (a basin one search missed)."""
    verdicts, notes = {}, []
    for name, g in _series(rows, label).items():
        points: dict[Any, list[float]] = {}
        for r in g:
            points.setdefault(r[x], []).append(float(r["critical_height"]))
        xs = sorted(points)
        for xv in xs:
            hs = points[xv]
            if len(hs) > 1 and max(hs) - min(hs) > _tie(g):
                notes.append(f"{name}, {x}={xv}: the seeds' searches disagree (H* {', '.join(f'{h:.4g}' for h in hs)}); "
                             "the largest is used")
        if len(xs) >= 2:
            v, why, _ = trend_verdict(xs, [max(points[xv]) for xv in xs], tie=_tie(g))
            verdicts[name] = (v, why)
    return verdicts, notes


#: Where the claims' verdicts are decided: the spec's full grid (docs/annealing.md quotes its verdicts).
FULL_GRID_COMMAND = "contrastive-bounds sweep ablations --profile thorough"


def grid_text(params: Mapping[str, Any]) -> tuple[str, str]:
    """``(which grid the rows come from, what a reader should know about it)``: a finished sweep's folder, or
    the profile of spec ``ablations`` run in-process; a reduced grid points to the full one, whose verdicts
    docs/annealing.md quotes (a trend on three points can read differently from the same trend on seven)."""
    sweep, profile = str(params.get("sweep", "") or ""), str(params.get("profile", "quick"))
    if sweep:
        return f"the grid of the sweep in {sweep!r}", ""
    where = f"the {profile!r} grid of sweep spec 'ablations'"
    if profile in ("thorough", "default"):
        return where + " (the full grid)", ""
    return where + " (a reduced grid)", (f"; a verdict on a reduced grid need not be the full grid's: the full grid "
                                         f"(`{FULL_GRID_COMMAND}`, then this check with sweep = its folder) decides, "
                                         "and docs/annealing.md quotes its verdicts")


def _outcome(claim: str, rows: list[dict[str, Any]], verdicts: dict[Any, tuple[str, str]], table: list[dict[str, Any]],
             plots: list[PlotSpec], problems: list[str], extra: str, details: dict[str, Any], *,
             conditions: tuple[tuple[str, str, bool, str], ...] = (), p_value: float | None = None,
             false_alarm: float = 0.0, params: Mapping[str, Any] | None = None) -> Outcome:
    """The outcome of an ablation check: the test's verdict from ``problems`` (a simulation contradicting its
    network, with ``p_value``/``false_alarm`` when it is stochastic) and the network conditions of every row
    plus ``conditions`` (kind, name, ok, detail) on top; the summary names the grid the verdict is from
    (:func:`grid_text`)."""
    claim_verdict = combine_verdicts([v for v, _ in verdicts.values()]) if verdicts else "mixed"
    verdict = _soundness(rows, problems)
    per = "; ".join(f"{name}: {v} ({why})" for name, (v, why) in verdicts.items())
    incomplete = [r for r in rows if not network_ok(r)]
    grid, caveat = grid_text(params or {})
    details = {**details, "grid": grid}
    text = (f"claim {claim!r}: {claim_verdict.upper()} on {grid}, {len(rows)} landscapes{caveat}. {per}" + extra
            + (f"; {len(incomplete)} network(s) incomplete" if incomplete else "")
            + (f"; PROBLEMS: {'; '.join(problems)}" if problems else ""))
    out = Outcome(verdict, text, reason="H* from verified transition networks; "
                  "'barrier-free' means barrier-free within the search effort in the table", table=table, plots=plots,
                  details={"claim_verdict": claim_verdict, "series": {str(k): {"verdict": v, "why": w}
                                                                      for k, (v, w) in verdicts.items()},
                           "problems": problems, **details}, p_value=p_value, false_alarm=false_alarm)
    _network_conditions(out, rows)
    for cond in conditions:
        out.require(*cond)
    return out


def _h_plot(title: str, xlabel: str, groups: dict[Any, list[dict[str, Any]]], x: str, logx: bool = False) -> PlotSpec:
    """One line per series through the largest H* at each x (over independent searches); every single
    search as a black dot when some point has several."""
    series, dots_x, dots_y = [], [], []
    for name, g in groups.items():
        points: dict[float, float] = {}
        for r in g:
            points[float(r[x])] = max(points.get(float(r[x]), 0.0), float(r["critical_height"]))
            dots_x.append(float(r[x]))
            dots_y.append(float(r["critical_height"]))
        xs = sorted(points)
        series.append(Series(str(name), xs, [points[v] for v in xs], style="-o"))
    if len(dots_x) > sum(len(s.x) for s in series):
        series.append(Series("each search", dots_x, dots_y, style="k."))
    return PlotSpec(title, xlabel, "H* (network; largest over searches)", series, logx=logx)


_COMMON = {"profile": "quick", "sweep": ""}


@check("A8.6_dimension", theorem="A8.6 (seed note): 'higher embedding dimension lowers energy barriers'", paper=PAPER_A,
       statement="H* of the same InfoNCE objective (fixed N, pairs, tau) as d grows, from transition networks; the "
                 "claim's verdict supported / refuted / mixed by a rule fixed before the data, with the search effort "
                 "behind every H*; asserted: every H* agrees with its network's table of minima, and every stored "
                 "minimum is a critical point of a separately written InfoNCE with the stored energy",
       quick=_COMMON, thorough={"profile": "medium", "sweep": ""}, validate=_validate)
def a86_dimension(params: Mapping[str, Any], seed: int) -> Outcome:
    rows = ablation_rows("dimension", str(params["profile"]), str(params["sweep"]))
    label = lambda r: f"N={r['num_points']}, tau={r['tau']:g}"  # noqa: E731
    verdicts, notes = _h_trend(rows, "dim", label)
    table = [{"N": r["num_points"], "tau": r["tau"], "d": r["dim"], "search seed": _search_seed(r), "H*": r["critical_height"],
              "D": r.get("catoni_difficulty"), **effort_columns(r)}
             for r in sorted(rows, key=lambda r: (r["num_points"], r["tau"], r["dim"], _search_seed(r)))]
    plots = [_h_plot("A8.6: H* vs embedding dimension d", "d", _series(rows, label), "dim")]
    return _outcome("higher d lowers barriers", rows, verdicts, table, plots, [], "".join(f". {n}" for n in notes),
                    {"seed_notes": notes}, params=params)


@check("A8.7_negatives", theorem="A8.7 (seed note): 'more negatives K make the potential smoother and lower the "
       "effective barrier'", paper=PAPER_A,
       statement="H* as the points per batch grow (d, tau fixed; N/2 pairs, and two pairs plus negatives-only points), "
                 "and the Arrhenius exponent of the deepest trap measured by fixed-T escape times (its bootstrap "
                 "interval must contain the network's barrier)", quick=_COMMON,
       thorough={"profile": "medium", "sweep": ""}, validate=_validate)
def a87_negatives(params: Mapping[str, Any], seed: int) -> Outcome:
    rows = ablation_rows("negatives", str(params["profile"]), str(params["sweep"]))

    def label(r: dict[str, Any]) -> str:
        pairs = r.get("pairs")
        return f"d={r['dim']}, tau={r['tau']:g}, " + ("N/2 pairs" if pairs is None else f"pairs {pairs}")

    verdicts, notes = _h_trend(rows, "num_points", label)
    problems, table, arr_rows, pvals = [], [], [], []
    for r in sorted(rows, key=lambda r: (label(r), r["num_points"])):
        a, lo, hi = finite(r.get("arrhenius_barrier")), finite(r.get("arrhenius_lo")), finite(r.get("arrhenius_hi"))
        trap_h = finite(r.get("trap_barrier"))
        agrees = None
        if a is not None and trap_h is not None:
            agrees = lo <= trap_h <= hi
            arr_rows.append(r)
            pvals.append(arrhenius_p_value(a, lo, hi, trap_h, float(r.get("confidence", CONF) or CONF)))
            if not agrees:
                problems.append(f"N={r['num_points']}: Arrhenius exponent {a:.4g} [{lo:.4g}, {hi:.4g}] excludes the network "
                                f"barrier {trap_h:.4g}")
        table.append({"series": label(r), "N": r["num_points"], "negatives per anchor": r["num_points"] - 2,
                      "H*": r["critical_height"], "Arrhenius exponent": a,
                      "interval": None if a is None else [lo, hi], "linear fit": finite(r.get("arrhenius_linear")),
                      "barrier inside": agrees, **effort_columns(r)})
    plots = [_h_plot("A8.7: H* vs points per batch N", "N", _series(rows, label), "num_points")]
    if arr_rows:
        arr_rows.sort(key=lambda r: r["num_points"])
        xs = [float(r["num_points"]) for r in arr_rows]
        plots.append(PlotSpec("A8.7: Arrhenius exponent (fixed-T escapes) vs network barrier", "N", "barrier",
                              [Series("Arrhenius exponent (99.9% bootstrap interval)", xs, [r["arrhenius_barrier"] for r in arr_rows],
                                      lo=[r["arrhenius_lo"] for r in arr_rows], hi=[r["arrhenius_hi"] for r in arr_rows],
                                      style="o"),
                               Series("network barrier of the trap", xs, [r["trap_barrier"] for r in arr_rows], style="--x")]))
    extra = "".join(f". {n}" for n in notes)
    if len(arr_rows) >= 2:
        v, why, _ = trend_verdict([r["num_points"] for r in arr_rows], [r["arrhenius_barrier"] for r in arr_rows],
                                  lo=[r["arrhenius_lo"] for r in arr_rows], hi=[r["arrhenius_hi"] for r in arr_rows])
        extra += f". Arrhenius exponents vs N: {v} ({why})"
    elif arr_rows:
        r = arr_rows[0]
        extra += (f". Arrhenius exponent at N={r['num_points']}: {r['arrhenius_barrier']:.4g} [{r['arrhenius_lo']:.4g}, "
                 f"{r['arrhenius_hi']:.4g}] vs network barrier {r['trap_barrier']:.4g}")
    return _outcome("more negatives lower the barrier", rows, verdicts, table, plots, problems, extra,
                    {"arrhenius_p_values": pvals}, p_value=min(1.0, min(pvals) * len(pvals)) if pvals else None,
                    false_alarm=min(1.0, (1 - CONF) * len(pvals)) if pvals else 0.0, params=params)


CONF = 0.999  # level of the rows' intervals in the built-in spec (ablations.toml: confidence)


def arrhenius_p_value(estimate: float, lo: float, hi: float, barrier: float, confidence: float) -> float:
    """Two-sided p-value of "the true Arrhenius exponent is ``barrier``" from a bootstrap interval at
    ``confidence`` (normal approximation: se = (hi − lo)/(2 z), z = Φ⁻¹((1 + confidence)/2))."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    se = (hi - lo) / (2 * z)
    if se <= 0:
        return 1.0 if estimate == barrier else 0.0
    return min(1.0, 2 * NormalDist().cdf(-abs(estimate - barrier) / se))


def radius_equivalence(rows: list[dict[str, Any]], seed: int) -> tuple[float, int, list[str]]:
    """Largest relative difference between the radius-R potential and the ``τ/R²`` potential, at random
    configurations and at every minimum of each row's radius-R network (coordinates from the row's
    details). Returns ``(max relative difference, configurations compared, problems above 1e-9)``."""
    from contrastive_bounds.numerics.landscapes.network import infonce_spec

    worst, problems, count = 0.0, [], 0
    rng = np.random.default_rng(seed)
    for r in rows:
        spec_r = infonce_spec(r["num_points"], r["dim"], r["tau"], r.get("pairs"), radius=r["radius"])
        spec_t = infonce_spec(r["num_points"], r["dim"], r["tau"] / r["radius"] ** 2, r.get("pairs"))
        g = rng.normal(size=(4, r["num_points"], r["dim"]))
        zs = list(g / np.linalg.norm(g, axis=-1, keepdims=True))
        zs += [np.asarray(m["z"]) for m in r.get("details", {}).get("minima", []) if "z" in m]
        count += len(zs)
        for z in zs:
            a, b = spec_r.energy(z), spec_t.energy(z)
            worst = max(worst, abs(a - b) / max(1.0, abs(b)))
    if worst > 1e-9:
        problems.append(f"the radius-R potential differs from the tau/R^2 one by {worst:.3g} (relative)")
    return worst, count, problems


@check("A8.8_curvature", theorem="A8.8 (seed note): 'higher positive curvature converges faster'", paper=PAPER_A,
       statement="the same InfoNCE objective on the sphere of radius R (curvature 1/R²): H* and the success of a fixed "
                 "log schedule from the radius-1 trap against R (Clopper-Pearson intervals); the radius acts as tau/R² "
                 "(checked numerically) and as the clock t/R²", quick=_COMMON,
       thorough={"profile": "medium", "sweep": ""}, validate=_validate)
def a88_curvature(params: Mapping[str, Any], seed: int) -> Outcome:
    from contrastive_bounds.numerics._stats import clopper_pearson

    rows = sorted(ablation_rows("curvature", str(params["profile"]), str(params["sweep"])), key=lambda r: r["radius"])
    conf = 0.999
    table, lo, hi, succ = [], [], [], []
    for r in rows:
        ci = clopper_pearson(int(r["success_count"]), int(r["chains"]), conf)
        succ.append(ci.estimate)
        lo.append(ci.lo)
        hi.append(ci.hi)
        table.append({"R": r["radius"], "curvature 1/R^2": 1 / r["radius"] ** 2, "tau/R^2": r["tau"] / r["radius"] ** 2,
                      "H*": r["critical_height"], "success": ci.estimate, "99.9% interval": [ci.lo, ci.hi],
                      "chains": r["chains"], "reached": r.get("reached_count"),
                      "schedule": f"T = {r['c']:g}/log(t + {r['t0']:g}), t_end {r['t_end']:g}", **effort_columns(r)})
    worst, compared, problems = radius_equivalence(rows, seed)
    # claim: success falls as curvature falls, i.e. as R grows ("higher curvature converges faster")
    verdicts = {}
    if len(rows) >= 2:
        v, why, _ = trend_verdict([r["radius"] for r in rows], succ, lo=lo, hi=hi)
        verdicts["success vs R"] = (v, why)
    hv = trend_verdict([r["radius"] for r in rows], [r["critical_height"] for r in rows], tie=_tie(rows)) if len(rows) >= 2 else None
    xs = [float(r["radius"]) for r in rows]
    plots = [PlotSpec("A8.8: success of T = c/log(t + t0) vs sphere radius R", "R (curvature 1/R²)", "success fraction",
                      [Series("success (99.9% Clopper-Pearson)", xs, succ, lo=lo, hi=hi, style="-o")]),
             PlotSpec("A8.8: H* vs sphere radius R", "R", "H* (network)",
                      [Series("H*", xs, [r["critical_height"] for r in rows], style="-o")])]
    extra = ("" if hv is None else f". H* vs R: {hv[1]}") + (f". Reading: V on the radius-R sphere = the objective at tau/R² (max relative difference "
                                f"{worst:.1e} over {compared} configurations: random ones and the networks' minima) on the clock t/R²; so curvature acts through the temperature of the "
                                "similarities and the clock, not through geometry alone")
    return _outcome("higher curvature converges faster", rows, verdicts, table, plots, [], extra,
                    {"radius_tau_equivalence_max_rel": worst, "radius_tau_equivalence_points": compared}, params=params,
                    conditions=(("exact", "the radius-R potential equals the tau/R^2 one (random configurations and the "
                                 "networks' minima)", not problems, f"max relative difference {worst:.2e} over {compared} "
                                 "configurations (tolerance 1e-9)"),))
