"""Every citation in the code, tests and docs resolves inside the repository: a statement section
("docs/theorems.md B8") is an anchored heading of docs/theorems.md, a reference case ("C03") is an
anchored heading of docs/reference-values.md, and nothing cites the brief's files, which are not
part of the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("theory", "numerics", "properties", "docs", "tests", "benchmarks")


def _sources():
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".md") and path.is_file():
                yield path, path.read_text(encoding="utf-8")
    for name in ("README.md", "CHANGELOG.md"):
        yield ROOT / name, (ROOT / name).read_text(encoding="utf-8")


def test_cited_sections_exist_in_the_published_statements():
    """Every docs/theorems.md section cited in code, tests or docs is an anchor of that page."""
    page = (ROOT / "docs" / "theorems.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r"^###.*\{#([A-Z][\w-]*)\}\s*$", page, flags=re.M))
    cited = set()
    for _path, text in _sources():
        cited.update(re.findall(r"docs/theorems\.md,? ([AB]\d+)", text))
        cited.update(re.findall(r"theorems\.md#([AB]\d+)\b", text))
    assert len(cited) >= 15, "too few citations found: the pattern is wrong"
    assert cited <= anchors, f"cited but missing from docs/theorems.md: {sorted(cited - anchors)}"
    assert {"A1", "A8", "A9", "B1", "B8", "B10"} <= anchors


def test_cited_reference_cases_exist():
    """Every case id cited as docs/reference-values.md Cnn, or linked, is an anchor of that page."""
    page = (ROOT / "docs" / "reference-values.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r"\{#(C\d\d)\}", page))
    assert anchors == {f"C{i:02d}" for i in range(1, 16)}
    cited = set()
    for _path, text in _sources():
        cited.update(re.findall(r"reference-values\.md,? (C\d\d)", text))
        cited.update(re.findall(r"reference-values\.md#(C\d\d)", text))
    assert cited and cited <= anchors


def test_nothing_cites_files_outside_the_repository():
    """The statements, cases and design are cited by their pages in docs/, never by the brief's names."""
    stale = re.compile(r"(?<![\w/])(THEOREMS|CASES|DESIGN)\.md")
    hits = [f"{path.relative_to(ROOT)}: {m.group(0)}" for path, text in _sources() for m in stale.finditer(text)]
    assert not hits, hits
