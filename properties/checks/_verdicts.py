"""Verdict logic: compare a measurement with a bound or a band, and say what the comparison means.

Three rules make a ``holds`` mean what it says (docs/design.md, Verdicts):

1. **Informative**: a bound no better than the quantity's trivial bound (``trivial``) cannot fail
   whatever the simulation does; it is reported ``uninformative``, not ``holds``.
2. **Powered**: a stochastic check whose interval at its sample size is too wide to see the
   deviation it must detect (``detect``) could not have failed either; it is reported
   ``inconclusive`` with the samples that would decide. The power is computed at the check's own
   false-alarm rate: a two-sided interval at level ``1 - false_alarm`` has half-width
   ``w = z se`` with ``z = Phi^-1(1 - false_alarm/2)``; a true value ``d`` beyond the band edge is
   reported violated with probability ``Phi(d/se - z)`` (normal approximation). The check is
   decided when that power is at least :data:`POWER_TARGET` (1/2, i.e. ``w <= d``).
3. **Rounding only** for deterministic values: relative :data:`ROUNDING` is tolerated, nothing more.
4. **Deterministic before stochastic**: a failed deterministic condition (``Outcome.conditions``: a
   premise, the registry, a reference value, a second implementation, an identity) makes the verdict
   ``violated`` whatever the p-value of the stochastic test; the suite's Holm step only corrects the
   stochastic part (``properties.runner``).
5. **Numbers only**: a NaN measurement, bound or p-value, or an infinite measurement, is a failed
   ``finite`` condition (``violated``), never a ``holds``; an infinite bound is ``vacuous``; a bound
   beyond float64 (``bound_log10`` alone) is compared in log10, and one above the largest float is
   ``uninformative`` (no float64 measurement can exceed it).

Agreement checks (a simulated value against a theoretical prediction with a stated model-error
band) that state no ``detect`` must detect :func:`default_detect`: a deviation as large as the band's
width, or :data:`DEFAULT_RELATIVE_EFFECT` of the prediction, whichever is larger.
"""

from __future__ import annotations

import math
from statistics import NormalDist

from contrastive_bounds.properties.checks._outcome import Outcome, Verdict
from contrastive_bounds.properties._statements import compare_text, relation

__all__ = ["compare_upper", "compare_lower", "compare_band", "assess", "default_detect", "power_against",
           "samples_for_power", "could_not_have_failed", "POWER_TARGET", "DEFAULT_RELATIVE_EFFECT", "ROUNDING",
           "FLOAT64_MAX_LOG10"]

ROUNDING = 1e-9  # relative slack granted to deterministic float64 comparisons (rounding only)
#: A stochastic check is decided when it reports a deviation of ``detect`` with at least this probability.
POWER_TARGET = 0.5
#: Default deviation an agreement check must detect, relative to its prediction (when wider than its band).
DEFAULT_RELATIVE_EFFECT = 0.2

#: log10 of the largest float64: no finite float64 measurement exceeds a bound above it.
FLOAT64_MAX_LOG10 = math.log10(1.7976931348623157e308)

_NORMAL = NormalDist()


def _nan(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isnan(float(x))


def _finiteness(o: Outcome) -> list[str]:
    """What is not a number in ``o``: NaN measurement / bound / interval / p-value, infinite measurement."""
    bad = []
    if o.empirical is not None and not math.isfinite(float(o.empirical)):
        bad.append(f"measured value {o.empirical}")
    for name in ("bound", "bound_log10", "p_value", "trivial_bound"):
        if _nan(getattr(o, name)):
            bad.append(f"{name} NaN")
    for name in ("interval", "band"):
        v = getattr(o, name)
        if v is not None and any(_nan(x) for x in v):
            bad.append(f"{name} {list(v)}")
    return bad


def _enforce_conditions(o: Outcome) -> None:
    """Finiteness as a condition (once), and ``violated`` whenever a deterministic condition failed."""
    if not any(c.kind == "finite" for c in o.conditions):
        bad = _finiteness(o)
        if bad:
            o.require("finite", "the measured value, the bound and the p-value are numbers", False, "; ".join(bad))
    if o.failed_conditions:
        if o.test_verdict is None:
            o.test_verdict = o.verdict
        o.verdict = "violated"


def _z(false_alarm: float) -> float:
    return _NORMAL.inv_cdf(1.0 - false_alarm / 2.0)


def default_detect(prediction: float | None, band: tuple[float, float]) -> float | None:
    """The deviation an agreement check must detect when it states none.

    Returns ``max(band width, DEFAULT_RELATIVE_EFFECT * |prediction|)``, or ``None`` when both are 0
    (a point prediction of exactly 0: no scale to judge power against).
    """
    width = abs(band[1] - band[0])
    rel = DEFAULT_RELATIVE_EFFECT * abs(prediction) if prediction is not None and math.isfinite(prediction) else 0.0
    d = max(width, rel)
    return d if d > 0 and math.isfinite(d) else None


def power_against(half_width: float, detect: float, false_alarm: float) -> float:
    """Probability that a two-sided interval of half-width ``half_width`` at false-alarm ``false_alarm``
    lies entirely beyond a band edge when the true value is ``detect`` beyond it (normal approximation).

    Args:
      half_width: the interval's half-width at the check's sample size (>= 0).
      detect: the deviation beyond the edge (> 0).
      false_alarm: the check's stated false-alarm probability, in (0, 1).

    Returns:
      ``Phi(detect/se - z)`` with ``se = half_width / z``, ``z = Phi^-1(1 - false_alarm/2)``; 1 for a
      zero-width interval.
    """
    if half_width <= 0:
        return 1.0
    z = _z(false_alarm)
    return _NORMAL.cdf(detect / (half_width / z) - z)


def samples_for_power(samples: int, half_width: float, detect: float, false_alarm: float,
                      target: float = POWER_TARGET) -> int:
    """Samples at which the power against ``detect`` reaches ``target`` (half-width ~ 1/sqrt(n)).

    A planning figure, like every ``samples_needed``: the half-width is extrapolated from the one
    measured at ``samples``.
    """
    z = _z(false_alarm)
    se = half_width / z
    se_needed = detect / (z + _NORMAL.inv_cdf(target))
    return int(math.ceil(samples * (se / se_needed) ** 2))


def _weaker_than_trivial(o: Outcome) -> bool:
    t = o.trivial_bound
    if t is None or not math.isfinite(t):
        return False
    if o.kind == "lower":
        return o.bound is not None and o.bound <= t
    if o.bound is not None:
        return o.bound >= t
    return o.bound_log10 is not None and t > 0 and o.bound_log10 >= math.log10(t)


def assess(outcome: Outcome) -> Outcome:
    """Apply the informativeness and power rules to a ``holds`` (in place; returns ``outcome``).

    Idempotent. Called by every ``compare_*`` function and on every outcome of a registered check,
    so hand-built outcomes get the same treatment. First the deterministic part: a NaN (or an infinite
    measured value) adds a failed ``finite`` condition, and any failed condition makes the verdict
    ``violated``. Then, for a ``holds``: an infinite bound makes it ``vacuous``; a ``holds`` whose bound is no better than
    ``trivial_bound`` becomes ``uninformative``; a stochastic ``holds`` (``false_alarm > 0``, an
    interval of positive width) of an agreement check (``kind == "band"``, a ``band``, or an
    interval around ``bound``), or of a bound with an explicit ``detect``, becomes ``inconclusive``
    when its power against ``detect`` is below :data:`POWER_TARGET`.
    """
    o = outcome
    _enforce_conditions(o)
    if o.verdict != "holds":
        return o
    infinite = o.bound is not None and math.isinf(o.bound) and (
        (o.kind != "lower" and o.bound > 0) or (o.kind == "lower" and o.bound < 0))
    if infinite:
        o.verdict = "vacuous"
        o.reason = o.reason or f"the bound is {o.bound}"
        o.summary += f"; vacuous: the bound is {o.bound} (it could not have failed)"
        return o
    if _weaker_than_trivial(o):
        o.verdict = "uninformative"
        shown = f"{o.bound:.4g}" if o.bound is not None else f"10^{o.bound_log10:.4g}"
        o.summary += (f"; uninformative: the bound {shown} is no better than the trivial bound {o.trivial_bound:.4g} "
                      "(it could not have failed)")
        return o
    if not o.false_alarm or o.interval is None or not o.samples:
        return o
    lo, hi = o.interval
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return o
    agreement = o.kind == "band" or (o.kind is None and (o.band is not None or (
        o.bound is not None and lo <= o.bound <= hi)))
    if agreement:
        edges = o.band if o.band is not None else (o.bound, o.bound)
        detect = o.detect if o.detect is not None else default_detect(o.bound, edges)
    elif o.kind in ("upper", "lower") and o.detect is not None:
        detect = o.detect
    else:
        return o
    if detect is None or detect <= 0:
        return o
    half = (hi - lo) / 2.0
    o.detect, o.power = detect, power_against(half, detect, o.false_alarm)
    if o.power < POWER_TARGET:
        o.verdict = "inconclusive"
        o.samples_needed = samples_for_power(o.samples, half, detect, o.false_alarm)
        o.summary += (f"; inconclusive: could not have failed at {o.samples} samples (interval half-width {half:.3g} "
                      f"vs the deviation {detect:.3g} it must detect: power {o.power:.2g} at false alarm "
                      f"{o.false_alarm:g}); about {o.samples_needed} samples would decide")
    return o


def _needed(n: int | None, half_width: float, margin: float) -> int | None:
    """Samples that would shrink the half-width below the margin (CI width ~ 1/sqrt(n))."""
    if not n or margin <= 0 or half_width <= 0:
        return None
    return int(math.ceil(n * (half_width / margin) ** 2))


def compare_upper(bound: float | None, empirical: float, interval: tuple[float, float] | None = None, *,
                  samples: int | None = None, what: str = "value", reason: str | None = None,
                  bound_log10: float | None = None, false_alarm: float = 0.0, trivial: float | None = None,
                  detect: float | None = None) -> Outcome:
    """Verdict for "empirical <= bound" (an upper bound).

    ``interval`` is the confidence interval of ``empirical`` (omit for an exact, deterministic value:
    then only float rounding, relative 1e-9, is tolerated). ``bound=None`` with ``bound_log10=None``
    means vacuous (give ``reason``), as does an infinite bound; a bound beyond float64 is given by
    ``bound_log10`` alone and compared in log10 (``holds`` only for a measurement below it, and
    ``uninformative`` when it is above the largest float64: no measurement could exceed it). A NaN
    anywhere is ``violated`` (a failed ``finite`` condition), never ``holds``.

    Args:
      trivial: the largest value the quantity can take whatever happens (e.g. ``2 sqrt(m(m-1))`` for
        the Frobenius distance of two similarity matrices); a bound at or above it is
        ``uninformative`` instead of ``holds``.
      detect: for a stochastic check, the smallest excess over the bound it must detect; a ``holds``
        with power below :data:`POWER_TARGET` against it is ``inconclusive``.
    """
    if bound is None and bound_log10 is None:
        return assess(Outcome("vacuous", f"bound is vacuous: {reason}", empirical=empirical, interval=interval,
                              reason=reason, samples=samples, kind="upper", trivial_bound=trivial))
    lo, hi = interval if interval is not None else (empirical, empirical)
    if bound is None:  # given in log10 alone (beyond float64): compared in log10, never a free pass
        return _compare_upper_log10(bound_log10, empirical, (lo, hi), interval is None, samples=samples, what=what,
                                    false_alarm=false_alarm, trivial=trivial, detect=detect)
    if math.isnan(bound) or math.isnan(empirical) or math.isnan(lo) or math.isnan(hi):
        return assess(Outcome("violated", f"{what} {empirical} vs bound {bound}: not a number", bound, None, empirical,
                              (lo, hi), None, false_alarm, samples=samples, kind="upper", trivial_bound=trivial,
                              detect=detect))
    if bound == math.inf:
        return assess(Outcome("vacuous" if hi < math.inf else "violated", f"{what} {empirical:.4g} vs an infinite bound",
                              bound, math.inf, empirical, (lo, hi), None, false_alarm, samples=samples,
                              reason=reason or "the bound is infinite", kind="upper", trivial_bound=trivial))
    tol = ROUNDING * max(abs(bound), 1e-300) if interval is None else 0.0
    ratio = empirical / bound if bound > 0 else (math.inf if empirical > 0 else 0.0)
    blog = math.log10(bound) if bound > 0 else None
    if hi <= bound + tol:
        verdict: Verdict = "holds"
        within = " (within float rounding)" if empirical > bound else ""
        text = f"{compare_text(what, empirical, 'bound', bound, weak=True)}{within} (ratio {ratio:.3g})"
    elif lo > bound + tol:
        verdict = "violated"
        e_text, _, b_text = relation(empirical, bound)
        text = f"{what} {e_text} EXCEEDS bound {b_text} (ratio {ratio:.3g})"  # sign-ok: violated means empirical > bound
    else:
        verdict = "inconclusive"
        text = f"{what} interval [{lo:.4g}, {hi:.4g}] straddles bound {bound:.4g}"
    needed = _needed(samples, (hi - lo) / 2, abs(bound - empirical)) if verdict == "inconclusive" else None
    return assess(Outcome(verdict, text, bound, blog, empirical, (lo, hi), ratio, false_alarm, samples=samples,
                          samples_needed=needed, kind="upper", trivial_bound=trivial, detect=detect))


def _compare_upper_log10(bound_log10: float, empirical: float, interval: tuple[float, float], exact: bool, *,
                         samples: int | None, what: str, false_alarm: float, trivial: float | None,
                         detect: float | None) -> Outcome:
    """``empirical <= 10^bound_log10`` for a bound known only in log10 (see :func:`compare_upper`)."""
    lo, hi = interval
    base = dict(samples=samples, kind="upper", trivial_bound=trivial, detect=detect)
    if _nan(bound_log10) or any(_nan(x) for x in (empirical, lo, hi)):
        return assess(Outcome("violated", f"{what} {empirical} vs bound 10^{bound_log10}: not a number", None, bound_log10,
                              empirical, (lo, hi), None, false_alarm, **base))
    if bound_log10 == math.inf:
        return assess(Outcome("vacuous" if hi < math.inf else "violated", f"{what} {empirical:.4g} vs an infinite bound",
                              None, bound_log10, empirical, (lo, hi), None, false_alarm, reason="the bound is infinite",
                              **base))

    def log10(x: float) -> float:
        return math.log10(x) if x > 0 else -math.inf

    tol = math.log10(1.0 + ROUNDING) if exact else 0.0
    ratio_log10 = log10(empirical) - bound_log10
    ratio = 10.0 ** ratio_log10 if ratio_log10 < FLOAT64_MAX_LOG10 else math.inf
    # the bound printed as a number where float64 holds it (the sign then follows the printed numbers), else as
    # 10^x: every float64 measurement is below a bound beyond float64
    if bound_log10 < FLOAT64_MAX_LOG10:
        e_text, sign, b_text = relation(empirical, 10.0 ** bound_log10)
    else:
        e_text, sign, b_text = f"{empirical:.4g}", "<", f"10^{bound_log10:.4f}"
    if log10(hi) <= bound_log10 + tol:
        verdict: Verdict = "holds"
        within = " (within float rounding)" if sign == ">" else ""
        text = f"{what} {e_text} {'<=' if sign != '>' else '>'} bound {b_text}{within} (ratio 10^{ratio_log10:.3g})"
    elif log10(lo) > bound_log10 + tol:
        verdict = "violated"
        text = f"{what} {e_text} EXCEEDS bound {b_text}"  # sign-ok: violated means empirical > bound
    else:
        verdict = "inconclusive"
        text = f"{what} interval [{lo:.4g}, {hi:.4g}] straddles bound 10^{bound_log10:.4f}"
    out = Outcome(verdict, text, None, bound_log10, empirical, (lo, hi), ratio, false_alarm, **base)
    if verdict == "holds" and bound_log10 >= FLOAT64_MAX_LOG10 and (trivial is None or not math.isfinite(trivial)):
        out.verdict = "uninformative"
        out.summary += ("; uninformative: the bound is beyond float64, so no float64 measurement can exceed it "
                        "(it could not have failed)")
    return assess(out)


def could_not_have_failed(o: Outcome) -> str | None:
    """Why an outcome could not have turned red in this run, or ``None`` when it could have.

    ``uninformative`` (the bound is no better than the trivial one), ``vacuous`` (no finite bound),
    and ``inconclusive`` with a power below :data:`POWER_TARGET` (its interval was too wide to see the
    deviation it must detect). A ``holds``, a ``violated``, and an ``inconclusive`` whose interval merely
    straddles the bound (more samples decide it) could have failed.
    """
    if o.verdict in ("uninformative", "vacuous"):
        return o.verdict
    if o.verdict == "inconclusive" and o.power is not None and o.power < POWER_TARGET:
        return "inconclusive: power below 1/2"
    return None


def compare_lower(bound: float | None, empirical: float, interval: tuple[float, float] | None = None, *,
                  samples: int | None = None, what: str = "value", reason: str | None = None,
                  false_alarm: float = 0.0, trivial: float | None = None, detect: float | None = None) -> Outcome:
    """Verdict for "empirical >= bound" (a lower bound); conventions as :func:`compare_upper`.

    The ratio reported is ``bound / empirical`` (<= 1 when it holds; near 1 means tight). ``trivial``
    is the smallest value the quantity can take (e.g. 0 for CKA): a lower bound at or below it is
    ``uninformative``.
    """
    if bound is None:
        return assess(Outcome("vacuous", f"bound is vacuous: {reason}", empirical=empirical, interval=interval,
                              reason=reason, samples=samples, kind="lower", trivial_bound=trivial))
    lo, hi = interval if interval is not None else (empirical, empirical)
    if any(_nan(x) for x in (bound, empirical, lo, hi)):
        return assess(Outcome("violated", f"{what} {empirical} vs lower bound {bound}: not a number", bound, None,
                              empirical, (lo, hi), None, false_alarm, samples=samples, kind="lower",
                              trivial_bound=trivial, detect=detect))
    if bound == -math.inf:
        return assess(Outcome("vacuous" if lo > -math.inf else "violated", f"{what} {empirical:.4g} vs a lower bound -inf",
                              bound, None, empirical, (lo, hi), None, false_alarm, samples=samples,
                              reason=reason or "the lower bound is -inf", kind="lower", trivial_bound=trivial))
    tol = ROUNDING * max(abs(bound), 1.0) if interval is None else 0.0
    ratio = bound / empirical if empirical > 0 else None
    if lo >= bound - tol:
        verdict: Verdict = "holds"
        within = " (within float rounding)" if empirical < bound else ""
        text = compare_text(what, empirical, "bound", bound, weak=True) + within
    elif hi < bound - tol:
        verdict = "violated"
        e_text, _, b_text = relation(empirical, bound)
        text = f"{what} {e_text} is BELOW bound {b_text}"  # sign-ok: violated means empirical < bound
    else:
        verdict = "inconclusive"
        text = f"{what} interval [{lo:.4g}, {hi:.4g}] straddles bound {bound:.4g}"
    needed = _needed(samples, (hi - lo) / 2, abs(bound - empirical)) if verdict == "inconclusive" else None
    return assess(Outcome(verdict, text, bound, math.log10(bound) if bound > 0 else None, empirical, (lo, hi), ratio,
                          false_alarm, samples=samples, samples_needed=needed, kind="lower", trivial_bound=trivial,
                          detect=detect))


def compare_band(prediction: float, band: tuple[float, float], empirical: float, interval: tuple[float, float], *,
                 samples: int, false_alarm: float, p_value: float | None = None, what: str = "value",
                 detect: float | None = None) -> Outcome:
    """Verdict for an agreement check: a simulated value against a prediction with a model-error band.

    ``holds`` when the interval meets ``band`` (and the check had the power to see a deviation of
    ``detect``, by default :func:`default_detect`), ``violated`` when it is disjoint from it.

    Args:
      prediction: the theory's value (reported as ``bound``; ``ratio`` is empirical/prediction).
      band: ``(lo, hi)`` with ``lo <= prediction <= hi``: what the stated model error allows.
      empirical, interval: the measurement and its confidence interval at level ``1 - false_alarm``.
      samples: independent samples behind ``empirical``.
      false_alarm: the interval's false-alarm probability, in (0, 1).
      p_value: optional p-value of "the true value is in the band" (for Holm).
      detect: the smallest deviation beyond the band the check must detect.

    Raises:
      ValueError: ``band`` is not ordered, or ``false_alarm`` is outside (0, 1).
    """
    b_lo, b_hi = (float(band[0]), float(band[1]))
    lo, hi = interval
    if any(_nan(x) for x in (prediction, empirical, lo, hi, b_lo, b_hi)):
        return assess(Outcome("violated", f"{what} {empirical} [{lo}, {hi}] vs band [{b_lo}, {b_hi}]: not a number",
                              prediction, None, empirical, (lo, hi), None, false_alarm, p_value, samples,
                              band=(b_lo, b_hi), kind="band", detect=detect))
    if not b_lo <= b_hi:
        raise ValueError(f"band={band!r} must satisfy lo <= hi")
    if not 0.0 < false_alarm < 1.0:
        raise ValueError(f"false_alarm={false_alarm!r} is outside its domain (0, 1)")
    lo, hi = interval
    if hi < b_lo or lo > b_hi:
        verdict: Verdict = "violated"
        text = f"{what} {empirical:.4g} [{lo:.4g}, {hi:.4g}] is OUTSIDE the band [{b_lo:.4g}, {b_hi:.4g}] of {prediction:.4g}"
    else:
        verdict = "holds"
        text = f"{what} {empirical:.4g} [{lo:.4g}, {hi:.4g}] meets the band [{b_lo:.4g}, {b_hi:.4g}] of {prediction:.4g}"
    ratio = empirical / prediction if prediction else None
    return assess(Outcome(verdict, text, prediction, math.log10(prediction) if prediction > 0 else None, empirical,
                          (lo, hi), ratio, false_alarm, p_value, samples, band=(b_lo, b_hi), kind="band",
                          detect=detect))
