"""CHANGELOG.md keeps one heading per kind of change in each release section (Keep a Changelog): merges of branches
that each added their own "### Changed" under Unreleased had left several, so a reader saw only part of the changes
under the first one."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

CHANGELOG = Path(__file__).resolve().parents[2] / "CHANGELOG.md"


def test_each_release_section_has_one_heading_per_kind():
    text = CHANGELOG.read_text(encoding="utf-8")
    releases = re.split(r"^## ", text, flags=re.M)[1:]
    assert releases and releases[0].startswith("[Unreleased]")
    for release in releases:
        kinds = Counter(m.strip() for m in re.findall(r"^### (.+)$", release, flags=re.M))
        repeated = {k: n for k, n in kinds.items() if n > 1}
        assert repeated == {}, f"{release.splitlines()[0]}: repeated headings {repeated}"
        known = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
        assert {k for k in kinds if not k.startswith("Migration")} <= known
