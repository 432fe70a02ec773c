"""The documentation site builds with --strict, and its pages are all in the nav (issue 7)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _nav_targets() -> set[str]:
    return set(re.findall(r":\s*([\w/.-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M))


def test_nav_points_at_existing_pages() -> None:
    """Every nav entry points at an existing page and the main pages are in the nav."""
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    nav = _nav_targets()
    assert {"index.md", "getting-started.md", "tutorial.md", "report.md", "cli.md", "conventions.md"} <= nav
    assert nav <= pages, f"nav points at missing pages: {sorted(nav - pages)}"


@pytest.mark.skipif(shutil.which("mkdocs", path=str(Path(sys.executable).parent)) is None,
                    reason="mkdocs not installed (pip install -e '.[docs]')")
@pytest.mark.slow
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    """The site builds with --strict, LaTeX goes to MathJax and the API pages render the docstrings."""
    proc = subprocess.run([str(Path(sys.executable).parent / "mkdocs"), "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stderr[-5000:]
    html = (tmp_path / "site" / "tutorial" / "index.html").read_text()
    assert "<math" in html and "cdn." not in html  # LaTeX rendered as MathML at build time, no CDN
    api = (tmp_path / "site" / "api" / "bound" / "index.html").read_text()
    assert "evaluate_log10" in api and "Vectorised evaluation in log space" in api  # docstrings rendered
