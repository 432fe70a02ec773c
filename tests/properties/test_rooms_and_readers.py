"""The rooms of the package keep their doors: the checks import nothing of the sweeps (the sweeps import the
checks), and one module of the package reads a saved search's ``network.json``.

The checks used to import the ``landscape`` sweep kind for its network cache, and a saved search had two
readers (the search's resume and a second parser for later runs)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


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
