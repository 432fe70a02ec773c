"""The API reference documents every public module, maths needs no CDN, Sphinx roles render as code,
and hypothesis strategies are documented without their ``draw`` parameter."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _modules() -> set[str]:
    out = set()
    for pkg in ("theory", "numerics", "properties"):
        for path in (ROOT / pkg).rglob("*.py"):
            rel = path.relative_to(ROOT).with_suffix("")
            if path.name in ("__init__.py", "__main__.py") or any(p.startswith("_") for p in rel.parts):
                continue
            out.add(".".join(rel.parts))
    return out


def test_every_public_module_is_in_the_api_reference():
    """numerics.landscapes.barriers, alignment.descent_run, training ... were missing from docs/api.

    Exempt: the command-line modules (docs/cli.md is generated from them) and the modules that define
    the built-in checks (listed by `check --list`, explained in docs/report.md)."""
    from contrastive_bounds.properties.checks._registry import CHECK_MODULES

    documented = set()
    for page in (ROOT / "docs" / "api").glob("*.md"):
        documented |= set(re.findall(r"^::: ([\w.]+)\s*$", page.read_text(), re.M))
    exempt = {m.removeprefix("contrastive_bounds.") for m in CHECK_MODULES}
    missing = sorted(m for m in _modules() - documented - exempt if not m.startswith("properties.cli."))
    assert missing == [], f"add these modules to a page of docs/api (`::: module`): {missing}"


def test_mkdocs_config_loads_no_cdn_and_renders_maths_as_mathml():
    """The MathJax script came from a CDN; formulas are now MathML made at build time."""
    config = (ROOT / "mkdocs.yml").read_text()
    assert "http" not in config.split("plugins:")[0].split("extra_javascript")[-1] or "extra_javascript" not in config
    assert "cdn" not in config and "docs/hooks/mathml.py" in config
    hook = _load(ROOT / "docs" / "hooks" / "mathml.py")
    page = type("P", (), {"file": type("F", (), {"src_path": "x.md"})()})()
    out = hook.on_page_content('<p><span class="arithmatex">\\(H^* = \\frac{1}{2}\\)</span></p>', page, None, None)
    assert "<math" in out and "<mfrac>" in out and "arithmatex" not in out


def test_sphinx_roles_render_as_code():
    """`:func:`~.runner.run_suite`` showed up verbatim on the API pages."""
    hook = _load(ROOT / "docs" / "hooks" / "sphinx_roles.py")
    html = "see :func:<code>~.runner.run_suite</code> and :class:<code>.check.PlotSpec</code>, :mod:<code>x.y</code>"
    assert hook.render_roles(html) == "see <code>run_suite</code> and <code>check.PlotSpec</code>, <code>x.y</code>"


def test_strategies_are_documented_without_draw():
    """@st.composite strategies are called without `draw`; the documented signature drops it."""
    import griffe

    ext = _load(ROOT / "docs" / "hooks" / "griffe_composite.py").CompositeStrategies()
    mod = griffe.load("properties.strategies", search_paths=[str(ROOT)], extensions=griffe.load_extensions(ext))
    sphere_points = mod["sphere_points"]
    assert [p.name for p in sphere_points.parameters] == ["n", "dim"]


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
