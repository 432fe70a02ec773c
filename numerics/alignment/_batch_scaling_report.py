"""Verdicts of the batch-size grid (docs/theorems.md B10): measured trends beside the bound's and the paper's.

Per cell, the mean of CKA (RSA) over seeds has a Student-t interval intersected with the metric's range,
[0, 1] ([-1, 1]); a cut end is marked ``clipped``. Measured trend of a (scaling a, budget): for each seed, the least-squares slope of CL-NSCL CKA (and RSA)
against log2 B over the batch sizes where that seed's runs did not diverge; a Student-t interval of
the mean slope over seeds (95 %). ``rises`` when the interval is above 0, ``falls`` when below, ``flat``
when it contains 0 (undecided at this number of seeds).

Bound's prediction: Theorem 1 at each B with T(B), eta(B), epsilon(B, T, delta) and pi_max of the
reference labels, in log10, with S = T eta (nominal, as the paper's Fig. 5 reads it) and with
S_eff = T kappa(B) eta (kappa: the first-order gain of the network at initialisation). A bound that
falls with B predicts alignment rising with B and vice versa; non-monotone over the grid predicts
nothing. Both are computed twice: with the per-step numerics of ``theory.alignment`` and with the
symbolic Bound object ``alignment.frobenius`` (mpmath); they must agree.

The paper (Fig. 5, fixed epochs): alignment falls with B for eta = O(B) and rises for O(sqrt B),
O(B^(1/4)) and O(1).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from contrastive_bounds import theory as alignment
from contrastive_bounds.numerics._stats import mean_ci

__all__ = ["ScalingResult", "PAPER_TREND", "claim_for", "METRIC_RANGE", "bounded_mean_ci"]

#: The range of each per-cell metric: CKA of two PSD Grams (Paper B's cosine Grams, centred) is in
#: [0, 1]; RSA is a Pearson correlation, in [-1, 1] (docs/theorems.md B5).
METRIC_RANGE: dict[str, tuple[float, float]] = {"cka": (0.0, 1.0), "rsa": (-1.0, 1.0)}


def bounded_mean_ci(values: Any, metric: str, confidence: float = 0.95) -> dict[str, Any]:
    """Student-t interval for the mean of a bounded metric over seeds, intersected with the metric's range.

    The mean of a quantity in ``[a, b]`` lies in ``[a, b]``, so cutting the interval there keeps its
    coverage and never reports an impossible value (CKA above 1 on three seeds near 1); ``clipped``
    says where it was cut.

    Args:
      values: at least 2 finite values of ``metric``. metric: a key of :data:`METRIC_RANGE`.
      confidence: in (0, 1).
    Returns:
      dict ``mean``, ``lo``, ``hi`` (floats, ``a <= lo <= mean <= hi <= b``), ``clipped`` (None, or
      ``"below"``, ``"above"``, ``"both"``: which ends were cut) and ``range`` (a, b).
    Raises:
      ValueError: an unknown metric, fewer than 2 values, non-finite values (from :func:`~.stats.mean_ci`).
    Source: Student t interval (numerics.stats.mean_ci); intersection with the parameter space.
    """
    if metric not in METRIC_RANGE:
        raise ValueError(f"metric={metric!r} must be one of {sorted(METRIC_RANGE)}")
    a, b = METRIC_RANGE[metric]
    ci = mean_ci(values, confidence)
    cut = [side for side, out in (("below", ci.lo < a), ("above", ci.hi > b)) if out]
    return {"mean": ci.mean, "lo": max(ci.lo, a), "hi": min(ci.hi, b),
            "clipped": None if not cut else ("both" if len(cut) == 2 else cut[0]), "range": (a, b)}


def PAPER_TREND(exponent: float) -> str:  # noqa: N802 - a table, spelled as a constant
    """The paper's observed alignment trend in B (Fig. 5, fixed epochs): ``"falls"`` for a = 1, else ``"rises"``."""
    return "falls" if exponent == 1.0 else "rises"


def claim_for(exponent: float, budget: str) -> str | None:
    """The registry claim (``theory.alignment_claims``) stating the bound's sign for (a, budget), if one does."""
    if budget == "steps":
        tag = {1.0: "1", 0.5: "1_2", 0.25: "1_4", 0.0: "0"}.get(float(exponent))
        return f"alignment.lr_scaling_fixed_steps_a{tag}" if tag else None
    return "alignment.lr_scaling_fixed_epochs_a1" if float(exponent) == 1.0 else None


def _direction(values: list[float]) -> str:
    d = np.diff(np.asarray(values, float))
    if np.all(d < 0):
        return "falls"
    if np.all(d > 0):
        return "rises"
    return "non-monotone"


def _opposite(direction: str) -> str:
    return {"falls": "rises", "rises": "falls"}.get(direction, "none")


@dataclass
class ScalingResult:
    """Cells of :func:`._batch_scaling.run_batch_scaling` (one dict per (B, budget)) and ``pi_max``."""

    config: Any
    cells: list[dict[str, Any]]
    pi_max: float

    def rows(self) -> list[dict[str, Any]]:
        """One flat dict per (budget, B, exponent, seed)."""
        return [{"budget": c["budget"], "batch_size": c["batch_size"], "steps": c["steps"], "gain_ntk": c["gain_ntk"],
                 **lane} for c in self.cells for lane in c["lanes"]]

    def diverged(self) -> list[dict[str, Any]]:
        """Rows whose SGD diverged (with model, step and learning rate): never used as results."""
        return [r for r in self.rows() if "diverged" in r]

    def table(self, metric: str = "cka") -> list[dict[str, Any]]:
        """Per (budget, exponent, B): mean of ``metric`` over the seeds that did not diverge, with a 95 %
        t-interval intersected with the metric's range (:func:`bounded_mean_ci`; ``clipped`` names a cut end)."""
        out = []
        for budget in self.config.budgets:
            for a in self.config.exponents:
                for b in self.config.batch_sizes:
                    rs = [r for r in self.rows() if r["budget"] == budget and r["exponent"] == a and r["batch_size"] == b]
                    ok = [r[metric] for r in rs if "diverged" not in r]
                    row = {"budget": budget, "exponent": a, "batch_size": b, "seeds": len(ok), "diverged": len(rs) - len(ok),
                           "learning_rate": rs[0]["learning_rate"], "steps": rs[0]["steps"]}
                    if len(ok) >= 2:
                        ci = bounded_mean_ci(ok, metric)
                        row.update(mean=ci["mean"], lo=ci["lo"], hi=ci["hi"], clipped=ci["clipped"])
                    elif ok:
                        row.update(mean=ok[0], lo=None, hi=None, clipped=None)
                    out.append(row)
        return out

    def bound_log10(self, exponent: float, budget: str, *, effective: bool) -> list[float]:
        """log10 of Theorem 1 at each B of the grid for (a, budget); S nominal or with the measured gain."""
        cfg, out = self.config, []
        gains = {(c["budget"], c["batch_size"]): c["gain_ntk"] for c in self.cells}
        from contrastive_bounds.numerics.alignment._batch_scaling import learning_rate_for, steps_for

        for b in cfg.batch_sizes:
            t = steps_for(cfg, b, budget)
            s = t * learning_rate_for(cfg, b, exponent) * (gains[(budget, b)] if effective else 1.0)
            eps = alignment.epsilon_value(b, t, cfg.delta)
            dl = alignment.delta_log10(cfg.sgd.tau, self.pi_max, eps)
            out.append(math.inf if math.isinf(dl) else alignment.frobenius_log10(s, cfg.sgd.tau, b, 1.0) + dl)
        return out

    def bound_log10_symbolic(self, exponent: float, budget: str) -> list[float | None]:
        """The nominal bound of :meth:`bound_log10` from the symbolic ``alignment.frobenius`` (None when vacuous)."""
        from contrastive_bounds.numerics.alignment._batch_scaling import learning_rate_for, steps_for

        cfg, out = self.config, []
        for b in cfg.batch_sizes:
            t = steps_for(cfg, b, budget)
            v = alignment.FROBENIUS.evaluate(tau=cfg.sgd.tau, pi_max=self.pi_max, batch_size=b, steps=t,
                                             delta=cfg.delta, eta_sum=t * learning_rate_for(cfg, b, exponent))
            out.append(None if v.vacuous else float(v.log10))
        return out

    def trend(self, exponent: float, budget: str, metric: str = "cka") -> dict[str, Any]:
        """Measured trend of ``metric`` in log2 B for (a, budget), with the bound's and the paper's, and verdicts."""
        cfg = self.config
        slopes = []
        for s in range(cfg.seed, cfg.seed + cfg.seeds):
            pts = [(math.log2(r["batch_size"]), r[metric]) for r in self.rows()
                   if r["budget"] == budget and r["exponent"] == exponent and r["seed"] == s and "diverged" not in r]
            if len(pts) >= 2:
                x, y = np.array(pts).T
                slopes.append(float(np.polyfit(x, y, 1)[0]))
        out: dict[str, Any] = {"exponent": exponent, "budget": budget, "metric": metric, "slopes": slopes}
        if len(slopes) >= 2:
            ci = mean_ci(slopes)
            out.update(slope=ci.mean, lo=ci.lo, hi=ci.hi,
                       measured="rises" if ci.lo > 0 else ("falls" if ci.hi < 0 else "flat"))
        else:
            out.update(slope=None, lo=None, hi=None, measured="undetermined (fewer than 2 seeds without divergence)")
        for key, eff in (("bound", False), ("bound_eff", True)):
            logs = self.bound_log10(exponent, budget, effective=eff)
            out[f"{key}_log10"] = logs
            out[f"{key}_direction"] = _direction(logs) if all(math.isfinite(v) for v in logs) else "vacuous somewhere"
            out[f"{key}_predicts"] = _opposite(out[f"{key}_direction"])
        out["paper"] = PAPER_TREND(exponent)
        out["claim"] = claim_for(exponent, budget)
        for key, pred in (("vs_bound", out["bound_predicts"]), ("vs_bound_eff", out["bound_eff_predicts"]),
                          ("vs_paper", out["paper"])):
            if out["measured"] not in ("rises", "falls") or pred == "none":
                out[key] = "undecided"
            else:
                out[key] = "agrees" if out["measured"] == pred else "disagrees"
        return out

    def trends(self, metric: str = "cka") -> list[dict[str, Any]]:
        """:meth:`trend` for every (budget, exponent)."""
        return [self.trend(a, g, metric) for g in self.config.budgets for a in self.config.exponents]

    def summary(self) -> dict[str, Any]:
        """JSON-ready: config, pi_max, the per-cell tables (CKA, RSA), trends with verdicts, divergences."""
        return {"config": asdict(self.config), "pi_max": self.pi_max, "float_dtype_training": self.config.sgd.dtype,
                "gain_ntk": {f"{c['budget']}:{c['batch_size']}": c["gain_ntk"] for c in self.cells},
                "table_cka": self.table("cka"), "table_rsa": self.table("rsa"),
                "trends_cka": self.trends("cka"), "trends_rsa": self.trends("rsa"),
                "diverged": [r["diverged"] | {"batch_size": r["batch_size"], "budget": r["budget"],
                                              "exponent": r["exponent"], "seed": r["seed"]} for r in self.diverged()],
                "rows": self.rows()}
