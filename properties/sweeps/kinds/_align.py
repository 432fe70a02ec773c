"""Sweep kinds of Paper B: ``align-simulate`` (Theorem 1 along coupled similarity descent) and
``align-train`` (CL vs NSCL/SupCon/CE on digits).

``align-simulate`` runs :func:`contrastive_bounds.numerics.alignment.run_similarity_descent`
from :func:`~contrastive_bounds.numerics.alignment.make_problem` (both seeded by the task's
seed) and reports d_T against Theorem 1 (docs/theorems.md B4): ``bound``/``bound_log10`` (Theorem 1 at T,
exact in log space), ``empirical`` = d_T, ``ratio`` = d_T / bound (``ratio_log10`` = minus the total
slack), the slack each proof link adds (``slack_<link>``, log10 factors, the slack budget), each
link's bound, the status of the bound (``informative``, ``uninformative`` above the trivial
2 sqrt(m(m-1)), ``vacuous`` when 1 - pi_max - epsilon <= 0, ``no_motion`` at eta = 0) and CKA/RSA
with their corollary lower bounds. Verdict: ``violated`` if d_t exceeds any link's bound at any step,
else ``vacuous`` / ``uninformative`` / ``holds`` by the status.

``align-train`` runs :func:`contrastive_bounds.numerics.alignment.train_alignment` (float32
training, said in ``details``) and reports the last epoch's CKA/RSA between CL and each other model,
probe accuracies and the loss gap L_DCL - L_NSCL of the CL model against its bound; verdict
``holds`` when both gaps are within the bound at every epoch, else ``violated``.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from contrastive_bounds.theory._domains import check_int, check_probability, check_real

from contrastive_bounds.properties._statements import compare_text
from contrastive_bounds.properties.sweeps.kinds._kind import ParamSpec, TaskKind, TaskOutput, register_kind

__all__ = ["ALIGN_SIMULATE", "ALIGN_TRAIN", "LINK_NAMES"]

LINK_NAMES = ("triangle", "L1", "L2", "L3", "theorem1")


def _pos(name: str):
    return lambda v: check_real(name, v, 0.0, math.inf)


SIM_PARAMS = (
    ParamSpec("num_samples", int, 1000, check=lambda v: check_int("num_samples", v, 2, 1_000_000), description="n samples (m = 2n)"),
    ParamSpec("num_classes", int, 10, check=lambda v: check_int("num_classes", v, 2, None), description="C classes (balanced)"),
    ParamSpec("batch_size", int, 64, check=lambda v: check_int("batch_size", v, 2, None), description="B samples per batch"),
    ParamSpec("tau", float, 0.5, check=_pos("tau"), description="temperature"),
    ParamSpec("eta", float, 1.0, check=lambda v: check_real("eta", v, 0.0, math.inf, lo_closed=True), description="step size"),
    ParamSpec("steps", int, 500, check=lambda v: check_int("steps", v, 1, 2**31 - 1), description="T steps"),
    ParamSpec("delta", float, 0.05, check=lambda v: check_probability("delta", v), description="failure probability of Theorem 1"),
    ParamSpec("coupled", bool, False, description="positive inside the denominator"),
    ParamSpec("symmetrize", bool, False, description="(G + G^T)/2 updates"),
    ParamSpec("both_views", bool, False, description="both views as anchors"),
    ParamSpec("replace", bool, False, description="batches with replacement"),
    ParamSpec("stratified", bool, False, description="stratified batches"),
    ParamSpec("dim", int, 32, check=lambda v: check_int("dim", v, 2, None), description="dimension of the initial views"),
    ParamSpec("class_signal", float, 0.0, check=lambda v: check_real("class_signal", v, 0.0, math.inf, lo_closed=True),
              description="class-mean strength of Sigma_0"),
)
SIM_OUTPUTS = {"status": str, "d_T_log10": float, "delta_log10": float, "pi_max": float, "epsilon": float,
               **{f"log10_{k}": float for k in LINK_NAMES}, **{f"slack_{k}": float for k in LINK_NAMES},
               "links_hold": bool, "batch_event": bool, "cka": float, "cka_lower": float, "rsa": float, "rsa_lower": float}


def _config(p: Mapping[str, Any], seed: int):
    from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig

    return DescentConfig(batch_size=p["batch_size"], steps=p["steps"], tau=p["tau"], step_size=p["eta"], seed=seed,
                         delta=p["delta"], anchors="both" if p["both_views"] else "first", coupled=p["coupled"],
                         symmetrize=p["symmetrize"], replace=p["replace"], stratified=p["stratified"])


def _validate_sim(p: Mapping[str, Any]) -> None:
    check_int("num_classes", p["num_classes"], 2, p["num_samples"])
    _config(p, 0).validate(p["num_samples"])


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _run_sim(p: Mapping[str, Any], seed: int) -> TaskOutput:
    from contrastive_bounds.numerics.alignment._descent_problem import make_problem
    from contrastive_bounds.numerics.alignment._descent_run import run_similarity_descent

    sigma0, labels = make_problem(p["num_samples"], p["num_classes"], dim=p["dim"], class_signal=p["class_signal"], seed=seed)
    res = run_similarity_descent(sigma0, labels, _config(p, seed))
    s = res.summary()
    thm1 = s["bounds_log10"]["theorem1"]
    d_l10 = s["d_T_log10"]
    holds = s["holds"]
    links_hold = all(holds.values())
    out = {"status": s["status"], "d_T_log10": d_l10, "delta_log10": _finite(s["delta_log10"]), "pi_max": s["pi_max"],
           "epsilon": s["epsilon"], "links_hold": links_hold, "batch_event": s["batch_event"], "cka": s["cka"],
           "cka_lower": s["cka_lower"], "rsa": s["rsa"], "rsa_lower": s["rsa_lower"]}
    for k in LINK_NAMES:
        out[f"log10_{k}"] = _finite(s["bounds_log10"][k])
        out[f"slack_{k}"] = _finite(s["slack_log10"][k])
    status = s["status"]
    if not links_hold:
        verdict = "violated"
    elif status == "vacuous":
        verdict = "vacuous"
    elif status == "uninformative":
        verdict = "uninformative"
    else:
        verdict = "holds"
    ratio_l10 = d_l10 - thm1 if (d_l10 is not None and math.isfinite(thm1)) else None
    bound = 10.0 ** thm1 if math.isfinite(thm1) and thm1 < 300 else None
    summary = (f"d_T = {s['d_T']:.4g} vs Theorem 1 10^{thm1:.4g}" if math.isfinite(thm1) else f"d_T = {s['d_T']:.4g}, "
               "Theorem 1 vacuous") + f"; status {status}; every link holds: {links_hold}"
    return TaskOutput(verdict, summary, bound=bound, bound_log10=_finite(thm1), empirical=s["d_T"], ci_lo=s["d_T"],
                      ci_hi=s["d_T"], ratio=10.0 ** ratio_l10 if ratio_l10 is not None else None, ratio_log10=ratio_l10,
                      reason=s["reason"] or None, outputs=out,
                      details={"bounds": {k: _finite(v) for k, v in s["bounds"].items()}, "holds": holds,
                               "trivial_bound": s["trivial_bound"], "m": s["m"]})


def _cost_sim(p: Mapping[str, Any]) -> float:
    """Seconds on one core: a compile plus steps x (5e-5 + 2.5e-8 B^2 + 4e-11 m^2) (benchmarks/README.md, Alignment)."""
    b, m = p["batch_size"], 2 * p["num_samples"]
    return 1.5 + p["steps"] * (5e-5 + 2.5e-8 * b * b + 4e-11 * m * m)


ALIGN_SIMULATE = register_kind(TaskKind(
    "align-simulate", "Theorem 1 along coupled CL/NSCL similarity descent: d_T, bound, ratio, slack budget",
    params=SIM_PARAMS, outputs=SIM_OUTPUTS, run=_run_sim, cost=_cost_sim, validate=_validate_sim))


TRAIN_PARAMS = (
    ParamSpec("num_classes", int, 10, check=lambda v: check_int("num_classes", v, 2, 10), description="classes 0..C-1 of digits"),
    ParamSpec("tau", float, 0.5, check=_pos("tau"), description="temperature of CL, NSCL, SupCon"),
    ParamSpec("epochs", int, 30, check=lambda v: check_int("epochs", v, 1, 100_000), description="epochs"),
    ParamSpec("batch_size", int, 128, check=lambda v: check_int("batch_size", v, 4, None), description="batch size"),
    ParamSpec("learning_rate", float, 1e-3, check=_pos("learning_rate"), description="Adam learning rate"),
    ParamSpec("coupled", bool, False, description="coupled denominators"),
    ParamSpec("probe", bool, True, description="linear-probe accuracy each epoch (the slowest metric)"),
)
TRAIN_OUTPUTS = {**{f"cka_z_{o}": float for o in ("nscl", "supcon", "ce")}, **{f"rsa_{o}": float for o in ("nscl", "supcon", "ce")},
                 **{f"probe_{o}": float for o in ("cl", "nscl", "supcon", "ce")},
                 "loss_gap_cl": float, "loss_gap_nscl": float, "loss_gap_bound": float, "gaps_hold": bool}


def _train_config(p: Mapping[str, Any], seed: int):
    from contrastive_bounds.numerics.alignment._training import TrainConfig

    return TrainConfig(num_classes=p["num_classes"], tau=p["tau"], epochs=p["epochs"], batch_size=p["batch_size"],
                       learning_rate=p["learning_rate"], seed=seed, coupled=p["coupled"], probe=p["probe"])


def _validate_train(p: Mapping[str, Any]) -> None:
    from contrastive_bounds.numerics.alignment._training import check_train_config

    check_train_config(_train_config(p, 0))


def _run_train(p: Mapping[str, Any], seed: int) -> TaskOutput:
    from contrastive_bounds.numerics.alignment._training import train_alignment

    res = train_alignment(_train_config(p, seed))
    last = res.history[-1]
    holds = all(h["loss_gap_cl_holds"] and h["loss_gap_nscl_holds"] for h in res.history)
    out = {f"cka_z_{o}": last["cka_z"][f"cl-{o}"] for o in ("nscl", "supcon", "ce")}
    out.update({f"rsa_{o}": last["rsa"][f"cl-{o}"] for o in ("nscl", "supcon", "ce")})
    out.update({f"probe_{o}": last["probe_accuracy"].get(o) for o in ("cl", "nscl", "supcon", "ce")})
    gap, bound = last["loss_gap_cl"], last["loss_gap_bound"]
    out.update(loss_gap_cl=gap, loss_gap_nscl=last["loss_gap_nscl"], loss_gap_bound=bound, gaps_hold=holds)
    ratio = gap / bound if bound > 0 else None
    failing = [k for k, h in enumerate(res.history, 1) if not (h["loss_gap_cl_holds"] and h["loss_gap_nscl_holds"])]
    every = ("the CL and NSCL loss gaps are within their bound at every epoch" if holds else
             f"a loss gap exceeds its bound at epoch(s) {', '.join(map(str, failing[:8]))}" + (", ..." if len(failing) > 8 else ""))
    return TaskOutput("holds" if holds else "violated",
                      f"CKA_z(CL, NSCL) {out['cka_z_nscl']:.4f}; last epoch: "
                      f"{compare_text('loss gap', gap, 'bound', bound, weak=True)}; {every}",
                      bound=bound, bound_log10=math.log10(bound) if bound > 0 else None, empirical=gap, ci_lo=gap, ci_hi=gap,
                      ratio=ratio, ratio_log10=math.log10(ratio) if ratio and ratio > 0 else None, outputs=out,
                      details={"float_dtype_training": "float32", "n_train": res.n_train, "n_test": res.n_test})


def _cost_train(p: Mapping[str, Any]) -> float:
    """Seconds on one core: about 0.4 s per epoch with the probe, 0.15 s without, plus a compile."""
    return 5.0 + p["epochs"] * (0.4 if p["probe"] else 0.15) * (128 / p["batch_size"]) ** 0.5


ALIGN_TRAIN = register_kind(TaskKind(
    "align-train", "CL vs NSCL/SupCon/CE trained on digits under shared randomness: CKA/RSA, loss gap vs its bound",
    params=TRAIN_PARAMS, outputs=TRAIN_OUTPUTS, run=_run_train, cost=_cost_train, validate=_validate_train))
