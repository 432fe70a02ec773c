"""Printed comparisons that are true: one helper writes "a <sign> b", one scanner finds false ones.

Every summary, table note and report line that puts a comparison sign between two numbers computes
the sign from the numbers it prints (:func:`relation`, :func:`compare_text`), so a printed ``<=`` is
never a template's assumption. :func:`contradictions` reads a finished text the way a reader would
and lists every inequality whose printed numbers contradict its sign; the check framework and the
sweep rows run it on every summary they produce (a contradiction is a failed deterministic
condition of a check, and an invalid sweep row), and the test suite runs it over every built-in
check's and sweep kind's summaries.

Numbers are printed with a format spec (default ``.4g``); when two different values print the same
at that precision, the precision is raised (up to 17 significant digits) until the printed texts
show the difference the sign states, so ``0.12344 < 0.12346`` never becomes ``0.1234 < 0.1234``.
A comparison involving NaN is written ``a vs b`` (no sign: nothing is claimed).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["relation", "compare_text", "chain_text", "fmt_number", "relation_log10", "contradictions", "Contradiction"]

_PRECISIONS = (4, 6, 8, 10, 12, 15, 17)


def fmt_number(x: float, spec: str = ".4g") -> str:
    """``format(x, spec)``; ``inf``/``-inf``/``nan`` as such (never an exception)."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return format(x, spec)


def _sign(a: float, b: float) -> str:
    return "<" if a < b else ">" if a > b else "="


def _spec_with(spec: str, digits: int) -> str:
    """``spec`` with its precision replaced by ``digits`` (``.4g`` -> ``.8g``; ``.4f`` -> ``.8f``)."""
    m = re.fullmatch(r"(.*?)\.(\d+)([a-zA-Z%]?)", spec)
    if m is None:
        return f".{digits}g"
    return f"{m.group(1)}.{digits}{m.group(3) or 'g'}"


def _texts(values: list[float], spec: str) -> list[str]:
    """``values`` printed with ``spec``, its precision raised until every two adjacent values that differ
    print differently (17 significant digits at most, then ``repr``)."""
    def read(text: str) -> float | str:
        try:
            return float(text.replace("−", "-"))
        except ValueError:
            return text

    def differ(texts: list[str]) -> bool:  # by the numbers a reader sees: "0.0000" and "-0.0000" are equal
        return all(read(ta) != read(tb) for (a, b), (ta, tb) in zip(zip(values, values[1:]), zip(texts, texts[1:]))
                   if a != b)

    texts = [fmt_number(v, spec) for v in values]
    if differ(texts):
        return texts
    for digits in _PRECISIONS:
        texts = [fmt_number(v, _spec_with(spec, digits)) for v in values]
        if differ(texts):
            return texts
    return [repr(v) for v in values]


def _signs(values: list[float], weak: bool) -> list[str]:
    out = []
    for a, b in zip(values, values[1:]):
        if math.isnan(a) or math.isnan(b):
            out.append("vs")
            continue
        sign = _sign(a, b)
        out.append({"<": "<=", ">": ">=", "=": "<="}[sign] if weak else sign)
    return out


def relation(a: float, b: float, spec: str = ".4g", *, weak: bool = False) -> tuple[str, str, str]:
    """The texts of ``a`` and ``b`` and the sign between them, computed from the values.

    Args:
      a, b: the two numbers (int or float; inf allowed).
      spec: format spec of both numbers (``.4g``, ``.3f``, ...); raised in precision when two
        different values would print the same.
      weak: write ``<=`` / ``>=`` instead of ``<`` / ``>`` (and ``<=`` for equal values): for texts
        that state a non-strict claim; the sign still follows the numbers.

    Returns:
      ``(a_text, sign, b_text)`` with sign one of ``<``, ``=``, ``>`` (``<=``, ``>=`` when ``weak``),
      or ``vs`` when either is NaN.
    """
    values = [float(a), float(b)]
    ta, tb = _texts(values, spec)
    return ta, _signs(values, weak)[0], tb


def compare_text(left: str, a: float, right: str, b: float, spec: str = ".4g", *, weak: bool = False,
                 between: str = "") -> str:
    """``"{left} {a} {sign} {right} {b}"`` with the sign computed from ``a`` and ``b`` (:func:`relation`).

    ``between`` is printed right after ``a`` (an interval such as ``" [0.41, 0.54]"``). Empty labels
    are left out: ``compare_text("", 1, "", 2)`` is ``"1 < 2"``.
    """
    ta, sign, tb = relation(a, b, spec, weak=weak)
    lhs = f"{left} {ta}" if left else ta
    rhs = f"{right} {tb}" if right else tb
    return f"{lhs}{between} {sign} {rhs}"


def chain_text(items: list[tuple[str, float]], spec: str = ".4g", *, weak: bool = False) -> str:
    """``"L2 -3.1 < Theorem-2 form -2.9 < Theorem 1 -2.5"``: labelled values in the given order, each sign
    computed from its two neighbours, all printed at one precision that shows every difference."""
    values = [float(v) for _, v in items]
    texts, signs = _texts(values, spec), _signs(values, weak)
    parts = [f"{label} {t}" if label else t for (label, _), t in zip(items, texts)]
    return parts[0] + "".join(f" {s} {p}" for s, p in zip(signs, parts[1:]))


def relation_log10(a_log10: float, b_log10: float, spec: str = ".4f") -> tuple[str, str, str]:
    """:func:`relation` of two numbers given by their log10, printed ``10^x``."""
    ta, sign, tb = relation(a_log10, b_log10, spec)
    return f"10^{ta}", sign, f"10^{tb}"


# ---------------------------------------------------------------------------------------- the scanner
_NUM = r"[-+−]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
#: a printed number: 10^x (x a number, or a parenthesised number), or a plain decimal/scientific number
_NUMBER = re.compile(rf"10\^\(?(?P<exp>{_NUM})\)?|(?P<plain>{_NUM})")
_SIGN = re.compile(r"<=|>=|≤|≥|(?<![<>=-])<(?![=<])|(?<![<>=-])>(?![=>])|\bEXCEEDS\b|\bis BELOW\b")
_WEAK = {"<=": "<=", "≤": "<=", ">=": ">=", "≥": ">=", "<": "<", ">": ">", "EXCEEDS": ">", "is BELOW": "<"}
#: where a right-hand operand ends: a clause's end, then (unless the operand is ``label = number``) a
#: parenthesis or a joining word
_CLAUSE_END = re.compile(r";|, |:|\n|\|")
_RIGHT_END = re.compile(r"\s\(|\s(?:vs|with|at|on|for|and|or|when|if|in|of|from|to|per)\s")
_EQUALS = re.compile(r"(?<![<>=!])=(?!=)")


@dataclass(frozen=True)
class Contradiction:
    """An inequality whose printed numbers contradict its sign: ``left sign right`` in ``excerpt``."""

    left: str
    sign: str
    right: str
    excerpt: str

    def __str__(self) -> str:
        return f"{self.left} {self.sign} {self.right} is false (in {self.excerpt!r})"


def _value(m: re.Match[str]) -> float:
    text = (m.group("exp") or m.group("plain")).replace("−", "-")
    v = float(text)
    if m.group("exp") is not None:
        return math.inf if v > 308 else -math.inf if v < -400 else 10.0 ** v
    return v


def _standalone(text: str, m: re.Match[str]) -> bool:
    """A number of its own: not part of a name (``L2``, ``Theorem-2``, ``x_1``, ``S²``) or a longer token."""
    start, end = m.start(), m.end()
    before = text[start - 1] if start > 0 else " "
    if text[start] in "-+−" and start > 0 and (before.isalnum() or before in "_)]"):
        return False  # "Theorem-2", "n-1": a hyphen, not a sign
    if before.isalnum() or before in "_.^/*'\"":
        return False
    after = text[end] if end < len(text) else " "
    if after in "-+" and end + 1 < len(text) and text[end + 1].isalpha():
        return False  # "1-r", "1+r": a formula
    return not (after.isalpha() or after in "_^/(" or (after == "." and end + 1 < len(text) and text[end + 1].isdigit()))


def _numbers(text: str) -> list[re.Match[str]]:
    return [m for m in _NUMBER.finditer(text) if _standalone(text, m)]


_INTERVAL_TAIL = re.compile(rf"\[\s*{_NUM}\s*,\s*{_NUM}\s*\]\s*$")


def _left_operand(before: str) -> re.Match[str] | None:
    """The number a sign's left side ends with (the estimate before an interval ``x [lo, hi]``)."""
    stripped = before.rstrip()
    tail = _INTERVAL_TAIL.search(stripped)
    if tail is not None:
        stripped = stripped[:tail.start()].rstrip()
    nums = _numbers(stripped)
    if not nums or nums[-1].end() != len(stripped):
        return None
    return nums[-1]


def _right_operand(after: str) -> re.Match[str] | None:
    """The number a sign's right side states: the last number before the operand ends (a label such
    as ``bound``, ``Kramers escape`` or ``(1-r)/(1+r) =`` may precede it)."""
    nxt = _SIGN.search(after)
    segment = after[:nxt.start()] if nxt is not None else after
    end = _CLAUSE_END.search(segment, 1)
    if end is not None:
        segment = segment[:end.start()]
    end = _RIGHT_END.search(segment, 1)
    if end is not None:
        segment = segment[:end.start()]
    equals = list(_EQUALS.finditer(segment))
    if equals:  # "(1-r)/(1+r) = 0.4": the value after the last "="
        nums = [m for m in _numbers(segment) if m.start() >= equals[-1].end()]
        return nums[0] if nums else None
    if ")" in segment[1:]:
        segment = segment[:segment.index(")", 1)]
    nums = _numbers(segment)
    return nums[-1] if nums else None


def contradictions(text: str) -> list[Contradiction]:
    """Every inequality in ``text`` that its printed numbers contradict.

    An inequality is a sign (``<``, ``<=``, ``>``, ``>=``, ``≤``, ``≥``, and the words ``EXCEEDS`` /
    ``is BELOW``) with a number right before it (or a number and its interval, ``0.48 [0.41, 0.54]``,
    which reads as the number) and a number after it, possibly after a label (``<= bound 0.46``,
    ``<= Kramers escape 0.46``, ``>= (1-r)/(1+r) = 0.4``). Numbers are decimals, scientific
    notation or ``10^x``; numbers inside names (``L2``, ``S²``, ``Theorem-2``) are not numbers. A sign
    without a number on either side (``p <= 0.05``, ``c > H*``) claims nothing about printed numbers
    and is skipped.

    Returns:
      one :class:`Contradiction` per false inequality, in order (empty: nothing printed is false).
    """
    out: list[Contradiction] = []
    for s in _SIGN.finditer(text):
        left = _left_operand(text[:s.start()])
        right = _right_operand(text[s.end():])
        if left is None or right is None:
            continue
        a, b = _value(left), _value(right)
        sign = _WEAK[s.group(0)]
        ok = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[sign]
        if not ok:
            lo, hi = max(0, left.start() - 40), min(len(text), s.end() + right.end() + 10)
            out.append(Contradiction(left.group(0), s.group(0), right.group(0), text[lo:hi]))
    return out
