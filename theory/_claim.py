"""Claims: checkable statements about bounds, with verdicts.

A :class:`Claim` wraps a ``check(certify: bool) -> Verdict``. Verdicts, strongest first:

- ``proved``: shown symbolically (sympy decides the sign of an expression under the symbols'
  assumptions);
- ``certified``: shown on a parameter box with rigorous interval arithmetic (python-flint arb,
  adaptive bisection of the box);
- ``supported``: no counterexample among sampled points (evidence, not proof);
- ``refuted``: a counterexample, re-evaluated with mpmath, is attached.

Claims taken from the seed notes are registered with ``expected="refuted"``: the toolkit asserts they
are false, and ``contrastive-bounds claims`` fails (exit 1) when any claim's verdict disagrees with
what the toolkit expects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping

import mpmath
import numpy as np
import sympy as sp

from ._backends import compiled
from ._intervals import arb_eval, arb_interval
from ._source import Source

__all__ = ["Claim", "Verdict", "sign_claim_check", "SignCheckSpec"]

Status = Literal["proved", "certified", "supported", "refuted"]


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking a claim.

    Attributes:
      status: ``proved`` | ``certified`` | ``supported`` | ``refuted``.
      evidence: what was done (the method, the box, the number of sub-boxes or samples).
      counterexample: for ``refuted``: the parameter point and the offending value.
    """

    status: Status
    evidence: str
    counterexample: dict[str, Any] | None = None

    @property
    def holds(self) -> bool:
        """True unless refuted."""
        return self.status != "refuted"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"status": self.status, "evidence": self.evidence, "counterexample": self.counterexample}


@dataclass(frozen=True)
class Claim:
    """A checkable statement with its source.

    Attributes:
      name: dotted registry name (``alignment.frobenius_decreasing_in_tau``).
      statement: the claim in words (with its parameter box, if any).
      source: a :class:`Source`.
      check: ``check(certify) -> Verdict``; with ``certify=False`` a cheap check (symbolic or sampled),
        with ``certify=True`` the rigorous one where available.
      expected: ``"holds"`` for a statement the toolkit asserts; ``"refuted"`` for a statement (e.g.
        from the seed notes) the toolkit asserts is false.
      tags: free labels (``"B7"``, ``"seed-note"``) for filtering.
    """

    name: str
    statement: str
    source: Source
    check: Callable[[bool], Verdict]
    expected: Literal["holds", "refuted"] = "holds"
    tags: tuple[str, ...] = field(default_factory=tuple)

    def run(self, certify: bool = False) -> Verdict:
        """Run the check and return its :class:`Verdict`."""
        return self.check(certify)

    def agrees(self, verdict: Verdict) -> bool:
        """Whether ``verdict`` is what the toolkit expects for this claim."""
        return (verdict.status == "refuted") == (self.expected == "refuted")


@dataclass(frozen=True)
class SignCheckSpec:
    """Specification of a sign claim: ``sign * expr > 0`` for all points of ``box``.

    Attributes:
      expr: sympy expression (e.g. a derivative of log(bound)).
      box: symbol name -> (lo, hi). For a symbol declared ``integer=True`` (a :class:`Param` with
        ``integer=True``), sampled points and counterexamples take integer values in
        ``[ceil(lo), floor(hi)]`` (a counterexample can be replayed through the bound), while
        certification treats it as real on ``[lo, hi]`` (a stronger statement than needed).
      sign: +1 (expr > 0) or -1 (expr < 0).
      max_boxes: bisection budget for certification.
      samples: number of sampled points for the cheap check (log-uniform on positive ranges).
      seed: seed of the sampler.
    """

    expr: sp.Expr
    box: Mapping[str, tuple[float, float]]
    sign: int = 1
    max_boxes: int = 20000
    samples: int = 400
    seed: int = 0


def _symbols(expr: sp.Expr, box: Mapping[str, tuple[float, float]]) -> list[sp.Symbol]:
    syms = sorted(expr.free_symbols, key=str)
    missing = [str(s) for s in syms if str(s) not in box]
    if missing:
        raise ValueError(f"box has no range for {', '.join(missing)}")
    return syms


def _split(lo: float, hi: float) -> float:
    if lo > 0 and hi / lo > 4:
        return math.sqrt(lo * hi)
    return 0.5 * (lo + hi)


def _integer_range(s: sp.Symbol, lo: float, hi: float) -> tuple[int, int]:
    """The integers ``[ceil(lo), floor(hi)]`` of an integer symbol's box range.

    Raises:
      ValueError: the range holds no integer.
    """
    ilo, ihi = math.ceil(lo), math.floor(hi)
    if ilo > ihi:
        raise ValueError(f"box range for the integer parameter {s} holds no integer: [{lo}, {hi}]")
    return ilo, ihi


def _sample_points(box: Mapping[str, tuple[float, float]], syms: list[sp.Symbol], n: int, seed: int) -> np.ndarray:
    """Corners + ``n`` random points of the box, shape ``(2**len(syms) + n, len(syms))``; log-uniform
    on ranges spanning more than a factor 4, else uniform; integer symbols rounded into their range."""
    rng = np.random.default_rng(seed)
    cols = []
    for s in syms:
        lo, hi = box[str(s)]
        u = rng.random(n)
        if lo > 0 and hi / lo > 4:
            cols.append(np.exp(np.log(lo) + u * (np.log(hi) - np.log(lo))))
        else:
            cols.append(lo + u * (hi - lo))
    pts = np.stack(cols, axis=1)
    corners = np.array(np.meshgrid(*[box[str(s)] for s in syms], indexing="ij")).reshape(len(syms), -1).T
    pts = np.concatenate([corners, pts], axis=0)
    for k, s in enumerate(syms):
        if s.is_integer:
            ilo, ihi = _integer_range(s, *box[str(s)])
            pts[:, k] = np.clip(np.rint(pts[:, k]), ilo, ihi)
    return pts


def _point(syms: list[sp.Symbol], values: Any) -> dict[str, Any]:
    """A counterexample point: ``int`` for integer symbols (so it replays through the bound), else float."""
    return {str(s): (int(round(float(v))) if s.is_integer else float(v)) for s, v in zip(syms, values)}


def _mp_value(expr: sp.Expr, syms: list[sp.Symbol], point: np.ndarray) -> Any:
    with mpmath.workdps(40):
        return compiled(tuple(syms), expr, "mpmath")(*[mpmath.mpf(float(v)) for v in point])


def _integer_witness(target: sp.Expr, syms: list[sp.Symbol], box: Mapping[str, tuple[float, float]],
                     subbox: tuple[tuple[float, float], ...]) -> tuple[np.ndarray | None, str]:
    """A point with integer values for integer symbols where ``target <= 0`` (checked at 40 digits),
    given a sub-box on which arb showed ``target < 0`` everywhere (reals). Returns (point, note)."""
    mid = np.array([_split(lo, hi) for lo, hi in subbox])
    choices: list[list[float]] = []
    inside = True
    for k, s in enumerate(syms):
        if not s.is_integer:
            choices.append([mid[k]])
            continue
        blo, bhi = _integer_range(s, *box[str(s)])
        lo, hi = subbox[k]
        ilo, ihi = max(math.ceil(lo), blo), min(math.floor(hi), bhi)
        if ilo <= ihi:  # an integer inside the sub-box: the wrong sign is certain there
            choices.append([float(min(max(round(mid[k]), ilo), ihi))])
        else:
            inside = False
            choices.append(sorted({float(min(max(v, blo), bhi)) for v in (math.floor(lo), math.ceil(hi))}))
    for combo in np.array(np.meshgrid(*choices, indexing="ij")).reshape(len(syms), -1).T:
        if inside or _mp_value(target, syms, combo) <= 0:
            return combo, "" if inside else " (nearest integer point, re-checked at 40 digits)"
    return None, ""


def sign_claim_check(spec: SignCheckSpec) -> Callable[[bool], Verdict]:
    """Build a ``check(certify)`` for "``sign * expr > 0`` on ``box``".

    Order of attempts: (1) symbolic: sympy decides ``(sign*expr).is_positive`` from the symbols'
    assumptions -> ``proved``; (2) sampled points (corners + log-uniform/uniform samples) evaluated
    at 40 digits with mpmath: a wrong sign -> ``refuted`` with the point; (3) with ``certify``:
    adaptive bisection with arb balls until every sub-box has ``sign*expr`` strictly positive ->
    ``certified``; a sub-box whose whole ball has the wrong sign -> ``refuted``; budget exhausted ->
    ``supported`` (with the count of undecided sub-boxes).

    Counterexamples are valid domain points: integer symbols (``s.is_integer``) are sampled at
    integers, and a refuting arb sub-box is turned into a point with integer coordinates (inside it
    when it holds one; else the nearest integers, re-checked at 40 digits, or no refutation).

    Raises:
      ValueError: the box lacks a symbol of ``expr``, a range is empty, or an integer symbol's range
        holds no integer.
    """
    syms = _symbols(spec.expr, spec.box)
    for s in syms:
        lo, hi = spec.box[str(s)]
        if not lo < hi:
            raise ValueError(f"box range for {s} is empty: [{lo}, {hi}]")
        if s.is_integer:
            _integer_range(s, lo, hi)
    target = sp.Integer(spec.sign) * spec.expr
    box_text = ", ".join(f"{s} in [{spec.box[str(s)][0]:g}, {spec.box[str(s)][1]:g}]" for s in syms)

    def check(certify: bool) -> Verdict:
        simplified = sp.simplify(target)
        if simplified.is_positive:
            return Verdict("proved", f"sympy: sign is determined by the symbols' assumptions (all parameters positive); "
                                     f"simplified expression: {sp.sstr(simplified)}")
        pts = _sample_points(spec.box, syms, spec.samples, spec.seed)
        fn = compiled(tuple(syms), target, "numpy")
        with np.errstate(all="ignore"):
            vals = np.asarray(fn(*pts.T), dtype=float) * np.ones(len(pts))
        for idx in np.argsort(vals):
            if vals[idx] > 0:
                break
            mp_val = _mp_value(target, syms, pts[idx])  # confirm at 40 digits
            if mp_val <= 0:
                return Verdict("refuted", f"sampled point on the box ({box_text}) has the wrong sign",
                               {"point": _point(syms, pts[idx]), "value": float(spec.sign * mp_val)})
        if not certify:
            return Verdict("supported", f"{len(pts)} sampled points (corners + random) on {box_text} all have the claimed sign")
        termwise = _certify_termwise(target, spec)
        if termwise is not None:
            return Verdict("certified", f"python-flint arb interval arithmetic on {box_text}: each of the "
                                        f"{termwise[0]} additive terms of sign*expr has the claimed sign "
                                        f"({termwise[1]} sub-boxes in all)")
        return _certify_bisection(target, syms, spec, box_text, len(pts))

    return check


def _arb_bisect(expr: sp.Expr, syms: list[sp.Symbol], box: Mapping[str, tuple[float, float]], budget: int,
                strict: bool = True) -> tuple[str, int, Any]:
    """Adaptive bisection: ('positive', n, None) | ('negative', n, subbox) | ('undecided', n, remaining)."""
    stack = [tuple(box[str(s)] for s in syms)]
    done = 0
    while stack:
        if done >= budget:
            return "undecided", done, len(stack)
        b = stack.pop()
        done += 1
        ball = arb_eval(expr, {s: arb_interval(lo, hi) for s, (lo, hi) in zip(syms, b)})
        if ball.is_finite() and (ball.lower() > 0 or (not strict and ball.lower() >= 0)):
            continue
        if ball.is_finite() and ball.upper() < 0:
            return "negative", done, b
        widths = [(math.log(hi / lo) if lo > 0 else (hi - lo) / max(abs(hi), 1e-300)) for lo, hi in b]
        k = int(np.argmax(widths))
        lo, hi = b[k]
        mid = _split(lo, hi)
        for part in ((lo, mid), (mid, hi)):
            nb = list(b)
            nb[k] = part
            stack.append(tuple(nb))
    return "positive", done, None


def _certify_termwise(target: sp.Expr, spec: SignCheckSpec) -> tuple[int, int] | None:
    """Certify ``target > 0`` by showing every additive term is > 0 (each factored, fewer symbols each).

    Returns (number of terms, sub-boxes used) on success, None when some term is not of one sign
    (then the whole expression must be bisected).
    """
    terms = [sp.factor(t) for t in sp.Add.make_args(target)]
    budget = spec.max_boxes
    used = 0
    for t in terms:
        if t.is_positive:
            continue
        syms = sorted(t.free_symbols, key=str)
        if not syms:
            if float(t) > 0:
                continue
            return None
        status, n, _ = _arb_bisect(t, syms, spec.box, budget - used)
        used += n
        if status != "positive":
            return None
    return len(terms), used


def _certify_bisection(target: sp.Expr, syms: list[sp.Symbol], spec: SignCheckSpec, box_text: str, n_samples: int) -> Verdict:
    status, n, info = _arb_bisect(target, syms, spec.box, spec.max_boxes)
    if status == "positive":
        return Verdict("certified", f"python-flint arb interval arithmetic, {n} sub-boxes of {box_text}: "
                                    f"sign*expr > 0 on every one")
    if status == "negative":
        point, note = _integer_witness(target, syms, spec.box, info)
        if point is None:
            ints = ", ".join(str(s) for s in syms if s.is_integer)
            return Verdict("supported", f"arb: sign*expr < 0 on the whole sub-box {info} of the real relaxation, "
                                        f"which holds no integer value of {ints}; the nearest integer points have "
                                        f"the claimed sign, so the statement over integers is neither certified "
                                        f"nor refuted; {n_samples} samples all agree")
        return Verdict("refuted", f"arb: whole sub-box has the wrong sign: {info}{note}",
                       {"point": _point(syms, point), "value": float(spec.sign * _mp_value(target, syms, point))})
    return Verdict("supported", f"arb bisection budget ({spec.max_boxes} boxes) exhausted with {info} undecided "
                                f"sub-boxes; {n_samples} samples all agree")
