"""The counts the entry pages quote are the registry's: "N checks", "N claims", "N bounds", a claims
verdict breakdown "(a certified, b proved, c refuted)", and the rows of a quoted `check` table.
getting-started.md had kept "23 checks" and "15 claims" long after the registry grew; this test fails
as soon as a page and the registry disagree, naming the page, the line and both numbers."""

from __future__ import annotations

import collections
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("docs/getting-started.md", "docs/index.md", "README.md")
COUNT = re.compile(r"\b(\d+)\s+(checks|claims|bounds)\b")
BREAKDOWN = re.compile(r"(\d+) certified, (\d+) proved, (\d+) refuted")
#: a line naming one of these checks quotes the claims that check covers, not all of them
CLAIM_CHECKS = {"B7.claims": "alignment.", "A.claims": "annealing."}


def _scope(line: str) -> str:
    """The claim-name prefix a line's claim count refers to ('' for every claim)."""
    return next((prefix for check, prefix in CLAIM_CHECKS.items() if check in line), "")


@pytest.fixture(scope="module")
def registry_counts():
    from contrastive_bounds.properties.checks._registry import registered_checks
    import contrastive_bounds.theory._registry as registry

    claims = registry.claims()
    return {"checks": len(registered_checks()), "bounds": len(registry.bounds()),
            "claims": {prefix: sum(c.name.startswith(prefix) for c in claims) for prefix in ("", *CLAIM_CHECKS.values())}}


def _quotes(pattern: re.Pattern[str]):
    for page in PAGES:
        for number, line in enumerate((ROOT / page).read_text().splitlines(), 1):
            for match in pattern.finditer(line):
                yield page, number, line, match


def test_quoted_counts_of_checks_claims_and_bounds_are_the_registry_s(registry_counts):
    """Every "N checks/claims/bounds" on the entry pages equals the registry's count (claims of B7.claims
    or A.claims on a line about that check: the claims it covers)."""
    wrong = []
    for page, number, line, match in _quotes(COUNT):
        n, what = int(match.group(1)), match.group(2)
        want = registry_counts["claims"][_scope(line)] if what == "claims" else registry_counts[what]
        if n != want:
            wrong.append(f"{page}:{number}: '{match.group(0)}' but the registry has {want}")
    assert wrong == []


@pytest.mark.slow
def test_quoted_claim_verdicts_are_the_current_ones():
    """A verdict breakdown "(a certified, b proved, c refuted)" is what `claims --certify` gives now,
    for all claims or, on a B7.claims / A.claims line, for the claims of that check."""
    quotes = list(_quotes(BREAKDOWN))
    if not quotes:
        pytest.skip("no page quotes a verdict breakdown")
    import contrastive_bounds.theory._registry as registry

    status = {c.name: c.run(True).status for c in registry.claims()}
    wrong = []
    for page, number, line, match in quotes:
        prefix = _scope(line)
        got = collections.Counter(s for name, s in status.items() if name.startswith(prefix))
        quoted = dict(zip(("certified", "proved", "refuted"), map(int, match.groups())))
        if quoted != {k: got[k] for k in quoted} or sum(quoted.values()) != sum(got.values()):
            wrong.append(f"{page}:{number}: '{match.group(0)}' but claims --certify gives {dict(got)}")
    assert wrong == []


def test_a_quoted_check_table_has_one_row_per_quick_scenario():
    """The `check` table quoted on getting-started.md has one row per scenario of the quick profile."""
    from contrastive_bounds.properties._scenarios import builtin_scenarios

    text = (ROOT / "docs/getting-started.md").read_text()
    table = text.split("contrastive-bounds check (quick)", 1)[1].split("```", 1)[0]
    rows = [ln for ln in table.splitlines() if ln.startswith("│ ")]
    assert len(rows) == len(builtin_scenarios("quick"))
