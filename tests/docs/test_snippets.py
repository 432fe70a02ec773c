"""Every code block of the docs runs (issue 7): docs/*.md, page by page.

Rules (the page author's side is described in docs/tutorial.md):

- A fenced block with ``title="NAME"`` is a file: the blocks with the same title are concatenated, in
  page order, into ``NAME`` in a fresh temporary folder before anything runs.
- Every other ```` ```python ```` block runs as written: in page order, in one namespace per page, in a
  fresh Python interpreter (``python`` started in the temporary folder, as a user would, with none of
  the test suite's set-up: no float64 mode switched on for it, no registries loaded), with the
  temporary folder as working directory and on ``sys.path``. A page whose blocks need JAX's float64 mode
  must switch it on visibly (``enable_x64()``); once both blocks of docs/alignment-numerics.md failed
  with ``X64DisabledError`` for a reader while passing here, where the suite had switched it on.
- ```` ```bash ```` blocks run (each line, in that folder, with this venv's scripts first on PATH)
  only on pages marked ``<!-- docs-test: run-shell -->``; other pages show shell commands whose
  output they describe in prose (``check`` takes minutes), and their commands are exercised by the
  CLI tests instead.
- ``<!-- docs-test: skip-python -->`` opts a page out of running its python blocks; allowed only on
  pages that show shell output (checked below), none uses it today.

A page's registrations (checks, bounds, claims) stay in its own interpreter.
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


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
@pytest.mark.slow
def test_page_blocks_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
    python = [(i, body) for i, (lang, title, body) in enumerate(found) if lang == "python" and title is None]
    if SKIP_PYTHON not in text and python:
        _run_python_blocks(page, python, tmp_path)
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


#: Runs a page's python blocks in one namespace, in a fresh interpreter; a traceback names the block.
_RUNNER = """\
import json
import sys

if __name__ == "__main__":  # spawned worker processes (the sweeps page's cluster) import this file: nothing to do
    namespace = {"__name__": "__main__"}
    for index, source in json.load(open(sys.argv[1])):
        exec(compile(source, f"{sys.argv[2]}[python block {index}]", "exec"), namespace)
"""


def _run_python_blocks(page: Path, python: list[tuple[int, str]], folder: Path) -> None:
    """The page's python blocks as a reader runs them: ``python`` in ``folder``, a fresh interpreter, the
    environment of this session minus anything that would switch JAX's float64 mode on for the page."""
    import json

    (folder / "_docs_blocks.json").write_text(json.dumps(python))
    (folder / "_docs_runner.py").write_text(_RUNNER)
    env = {k: v for k, v in os.environ.items() if k not in ("JAX_ENABLE_X64", "PYTEST_ADDOPTS", "PYTHONPATH")}
    proc = subprocess.run([sys.executable, "_docs_runner.py", "_docs_blocks.json", page.name], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{page.name}: its python blocks, run as written, failed:\n{proc.stderr[-4000:]}"


def test_the_python_blocks_run_in_a_fresh_interpreter_without_float64(tmp_path: Path) -> None:
    """A block that needs float64 and does not switch it on fails as it would for a reader (the suite's own
    conftest switches float64 on in this process; the page's blocks never see that)."""
    import jax

    assert jax.config.jax_enable_x64  # this process: the suite's set-up
    probe = [(0, "import jax\nassert not jax.config.jax_enable_x64, 'float64 leaked into the page'")]
    _run_python_blocks(DOCS / "index.md", probe, tmp_path)
    with pytest.raises(AssertionError, match=r"index\.md\[python block 3\]"):
        _run_python_blocks(DOCS / "index.md", [(3, "raise ValueError('x')")], tmp_path)


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
