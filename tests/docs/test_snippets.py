"""Every code block of the docs runs (issue 7): docs/*.md, page by page.

Rules (the page author's side is described in docs/tutorial.md):

- A fenced block with ``title="NAME"`` is a file: the blocks with the same title are concatenated, in
  page order, into ``NAME`` in a fresh temporary folder before anything runs.
- Every other ```` ```python ```` block runs, in page order, in one namespace per page, with the
  temporary folder as working directory and on ``sys.path`` (as for a user who starts Python there).
- ```` ```bash ```` blocks run (each line, in that folder, with this venv's scripts first on PATH)
  only on pages marked ``<!-- docs-test: run-shell -->``; other pages show shell commands whose
  output they describe in prose (``check`` takes minutes), and their commands are exercised by the
  CLI tests instead.
- ``<!-- docs-test: skip-python -->`` opts a page out of running its python blocks; allowed only on
  pages that show shell output (checked below), none uses it today.

Registrations made by a page (checks, bounds, claims) are undone afterwards so other tests see the
package's own registries.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```\s*$", re.S | re.M)
RUN_SHELL = "<!-- docs-test: run-shell -->"
SKIP_PYTHON = "<!-- docs-test: skip-python -->"


def blocks(page: Path) -> list[tuple[str, str | None, str]]:
    """(language, title or None, body) of every fenced block of ``page``, in order."""
    out = []
    for lang, attrs, body in FENCE.findall(page.read_text()):
        m = re.search(r'title="([^"]+)"', attrs)
        out.append((lang, m.group(1) if m else None, body))
    return out


PAGES = sorted(p for p in DOCS.glob("*.md") if any(lang in ("python", "bash") for lang, _, _ in blocks(p)))


def test_fence_parser_sees_the_tutorial_files() -> None:
    """The fence parser finds the tutorial's three files by their titles."""
    titles = {t for _, t, _ in blocks(DOCS / "tutorial.md") if t}
    assert titles == {"my_checks.py", "test_my_checks.py", "scenarios.toml"}


@pytest.fixture
def isolated_registries():
    from contrastive_bounds.properties.checks import framework as check_mod
    from contrastive_bounds.properties.checks.registry import registered_checks
    from contrastive_bounds.theory import registry

    registered_checks()  # import the package's checks first, so only the page's are removed
    registry.load_all()
    checks, objs = dict(check_mod._CHECKS), dict(registry._REGISTRY)
    modules = set(sys.modules)
    yield
    check_mod._CHECKS.clear()
    check_mod._CHECKS.update(checks)
    registry._REGISTRY.clear()
    registry._REGISTRY.update(objs)
    for name in set(sys.modules) - modules:
        mod = sys.modules.get(name)
        if mod is not None and not getattr(mod, "__name__", "").startswith(("contrastive_bounds", "jax", "numpy")):
            if str(getattr(mod, "__file__", "") or "").startswith(os.environ.get("DOCS_TMP", "\0")):
                del sys.modules[name]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
@pytest.mark.slow
def test_page_blocks_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_registries) -> None:
    """Every code block of a docs page runs (Python blocks in one namespace, titled files written, shell steps
    run) in a fresh folder."""
    text = page.read_text()
    if SKIP_PYTHON in text:
        assert "```console" in text or "```text" in text, f"{page.name}: skip-python is only for pages showing shell output"
    found = blocks(page)
    files: dict[str, str] = {}
    for _, title, body in found:
        if title:
            files[title] = files.get(title, "") + body
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("DOCS_TMP", str(tmp_path))
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    if SKIP_PYTHON not in text:
        for i, (lang, title, body) in enumerate(found):
            if lang == "python" and title is None:
                exec(compile(body, f"{page.name}[python block {i}]", "exec"), namespace)  # noqa: S102
    if RUN_SHELL in text:
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               "COLUMNS": "120"}
        env.pop("PYTEST_ADDOPTS", None)
        for i, (lang, title, body) in enumerate(found):
            if lang != "bash" or title:
                continue
            for line in body.splitlines():
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                proc = subprocess.run(shlex.split(line), cwd=tmp_path, env=env, capture_output=True, text=True,
                                      timeout=300)
                assert proc.returncode == 0, f"{page.name} bash block {i}: `{line}` exited {proc.returncode}\n" \
                                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


@pytest.mark.slow
def test_tutorial_check_writes_a_passing_report(tmp_path: Path) -> None:
    """The tutorial's end state, as a reader who follows it reaches it: results.json with two 'holds' records."""
    import json

    page = DOCS / "tutorial.md"
    files: dict[str, str] = {}
    for _, title, body in blocks(page):
        if title:
            files[title] = files.get(title, "") + body
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    env = {**os.environ, "COLUMNS": "120"}
    proc = subprocess.run([str(Path(sys.executable).parent / "contrastive-bounds"), "check", "--scenarios",
                           "scenarios.toml", "--out", "report", "--json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "report" / "results.json").read_text())
    recs = data["results"]
    assert [r["scenario"] for r in recs] == ["small-batch", "hot"]
    for r in recs:
        o = r["outcome"]
        assert o["verdict"] == "holds" and o["bound"] <= o["empirical"], r
        assert 0 < o["ratio"] <= 1
    # a typo in a parameter name is refused before anything runs (exit 2, one line naming the keys)
    (tmp_path / "bad.toml").write_text(files["scenarios.toml"].replace("batch_size = 4", "batchsize = 4"))
    bad = subprocess.run([str(Path(sys.executable).parent / "contrastive-bounds"), "check", "--scenarios",
                          "bad.toml", "--out", "bad"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode == 2 and "batchsize" in bad.stderr and "batch_size" in bad.stderr
