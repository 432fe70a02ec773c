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


# --- README: short, one figure, the CI's test command, and every number it quotes from a published source ---

README = ROOT / "README.md"
#: a number in prose: 0.2819, 1.259, 16.56 (parameters such as N = 4 or τ = 0.1 have fewer than 3 digits)
QUOTED = re.compile(r"(?<![\w.])(\d+\.\d+|\d{3,})(?![\w.])")


def _prose(text: str) -> str:
    """README without fenced blocks, inline code, link targets, the arXiv ids and the Python version (names and
    requirements, not results)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"Python ≥ \d+\.\d+", "", text)
    return re.sub(r"arXiv:\d{4}\.\d{5}", "", text)


def _published_numbers() -> list[float]:
    import json

    values = []

    def walk(x):
        if isinstance(x, bool):
            return
        if isinstance(x, (int, float)):
            values.append(float(x))
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(json.loads((ROOT / "docs/data/landscape-values.json").read_text()))
    return values


def _significant(printed: str) -> int:
    return len(printed.replace(".", "").lstrip("0"))


def test_readme_is_short_and_shows_one_figure_the_repository_regenerates():
    """At most 80 lines, exactly one image, which exists under docs/figures/, with the command that redraws it."""
    text = README.read_text()
    assert len(text.splitlines()) <= 80
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(images) == 1 and images[0].startswith("docs/figures/") and (ROOT / images[0]).is_file()
    assert "contrastive-bounds landscape infonce" in text and "disconnectivity.png" in text


def test_readme_states_the_ci_test_command():
    """The README's two commands are the install-and-check line and `pytest`, which is what .ci/run runs last."""
    text = README.read_text()
    block = re.search(r"```bash\n(.*?)```", text, flags=re.S).group(1).splitlines()
    assert block == ['pip install -e ".[test]" && contrastive-bounds check', "pytest"]
    ci = [line.strip() for line in (ROOT / ".ci/run").read_text().splitlines() if line.strip()]
    assert ci[-1] == "pytest" and "HYPOTHESIS_PROFILE=ci" in text


def test_every_number_the_readme_quotes_is_published():
    """Each number of three or more significant digits in the README's prose is a value of
    docs/data/landscape-values.json at the printed precision, or printed in benchmarks/README.md."""
    published = _published_numbers()
    bench = (ROOT / "benchmarks/README.md").read_text()
    text = _prose(README.read_text())
    quoted = [m.group(1) for m in QUOTED.finditer(text) if _significant(m.group(1)) >= 3]
    assert quoted, "the pattern found no number: the README quotes H* values"
    missing = []
    for printed in quoted:
        digits = _significant(printed)
        in_values = any(v != 0 and float(f"{v:.{digits}g}") == float(printed) for v in published)
        if not in_values and not re.search(rf"(?<![\d.]){re.escape(printed)}(?![\d])", bench):
            missing.append(printed)
    assert missing == [], f"README quotes numbers found in neither published source: {missing}"
