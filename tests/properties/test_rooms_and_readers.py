"""The rooms of the package keep their doors: the checks (``properties/checks`` and the modules of
``properties`` that serve them: runner, report, scenarios, statistics, strategies) import none of the
applications built on them (the command line, the sweeps, the self-test); the self-test and the sweeps
do not import the command line; and one module of the package reads a saved search's ``network.json``.

The checks used to import the ``landscape`` sweep kind for its network cache, and a saved search had two
readers (the search's resume and a second parser for later runs)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path, root: Path = ROOT) -> set[str]:
    """Every module ``path`` imports, top level or inside a function; relative imports resolved, and
    ``from package import name`` counted as ``package.name`` too (it may be a submodule)."""
    tree = ast.parse(path.read_text())
    rel = path.relative_to(root).with_suffix("").parts
    here = ["contrastive_bounds", *rel] if rel[0] in ("theory", "numerics", "properties") else list(rel)
    package = here if path.name == "__init__.py" else here[:-1]
    if path.name == "__init__.py":
        package = package[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            out.add(module)
            out |= {f"{module}.{a.name}" for a in node.names}
    return out


APPLICATIONS = ("cli", "sweeps", "selftest")


def _room(path: Path) -> str:
    """``checks`` for properties/checks/** and the properties modules beside it; else the application's name."""
    parts = path.relative_to(ROOT / "properties").parts
    return parts[0] if len(parts) > 1 and parts[0] in APPLICATIONS else "checks"


def _imports_of(room: str) -> dict[str, list[str]]:
    out = {}
    for path in sorted((ROOT / "properties").rglob("*.py")):
        if path.name == "__main__.py" or _room(path) != room:  # __main__ is the console entry point: an application
            continue
        out[str(path.relative_to(ROOT))] = sorted(_imports(path))
    return out


def _into(imports: dict[str, list[str]], rooms: tuple[str, ...]) -> dict[str, list[str]]:
    """The imports of each file that land in one of ``rooms`` (the package or any module under it)."""
    targets = [f"contrastive_bounds.properties.{r}" for r in rooms]
    bad = {f: [m for m in ms if any(m == t or m.startswith(t + ".") for t in targets)] for f, ms in imports.items()}
    return {f: ms for f, ms in bad.items() if ms}


def test_the_checks_import_no_application():
    """No module of the checks' room imports the command line, the sweeps or the self-test (the applications
    import the checks, never the reverse)."""
    imports = _imports_of("checks")
    assert "properties/checks/_framework.py" in imports and "properties/_runner.py" in imports  # the scan sees them
    assert _into(imports, APPLICATIONS) == {}


def test_the_self_test_and_the_sweeps_do_not_import_the_command_line():
    """The self-test used to print through the command line's console; its command is now the command line's
    (``cli._self_test``) and the self-test only says what to print."""
    for room in ("selftest", "sweeps"):
        imports = _imports_of(room)
        assert imports, room
        assert _into(imports, ("cli",)) == {}, room


def test_the_import_scan_sees_every_form_of_import(tmp_path):
    """A relative import, ``from package import module`` and a function-level import are all found."""
    probe = tmp_path / "properties" / "checks" / "_probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("from ..cli import _common\n\ndef f():\n    import contrastive_bounds.properties.sweeps._engine\n"
                     "    from contrastive_bounds.properties import selftest\n")
    found = _into({"probe": sorted(_imports(probe, tmp_path))}, APPLICATIONS)["probe"]
    assert set(found) >= {"contrastive_bounds.properties.cli", "contrastive_bounds.properties.cli._common",
                          "contrastive_bounds.properties.sweeps._engine", "contrastive_bounds.properties.selftest"}
    assert _into({"ok": ["contrastive_bounds.properties.checks", "contrastive_bounds.properties.sweepstakes"]},
                 APPLICATIONS) == {}


def test_no_module_of_the_checks_imports_the_sweeps():
    """Every import (top-level or inside a function) of properties/checks/*.py: none from properties.sweeps."""
    bad = {p.name: sorted(m for m in _imports(p) if m.startswith("contrastive_bounds.properties.sweeps"))
           for p in (ROOT / "properties" / "checks").glob("*.py")}
    assert {k: v for k, v in bad.items() if v} == {}


def test_one_module_reads_the_state_file():
    """Modules that name the state file (STATE_FILE or "network.json") and parse JSON: serial.py only."""
    readers = []
    for pkg in ("numerics", "properties"):
        for path in (ROOT / pkg).rglob("*.py"):
            text = path.read_text()
            if ("STATE_FILE" in text or "network.json" in text) and ("json.loads(" in text or "json.load(" in text):
                readers.append(str(path.relative_to(ROOT)))
    assert readers == ["numerics/landscapes/network/serial.py"]


def test_the_network_package_reads_a_saved_search_without_jax():
    """Importing the store, its serialiser, the saved-search reader, the argument rules and the anneal experiment's
    module starts no JAX (the command line refuses bad input before paying for it)."""
    import json
    import os
    import subprocess
    import sys

    code = ("import sys, json\n"
            "import contrastive_bounds.numerics.landscapes.network.saved, contrastive_bounds.numerics.landscapes.network."
            "arguments, contrastive_bounds.numerics.landscapes.network.rebuild, contrastive_bounds.numerics."
            "network_experiment, contrastive_bounds.properties.cli.landscape_options\n"
            "print(json.dumps('jax' in sys.modules))")
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) is False
