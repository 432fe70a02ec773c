"""docs/cli.md is generated from the command line and must match it (issue 7).

Regenerate after changing a command, an option or a help text with::

    typer contrastive_bounds.properties.cli._app utils docs --name contrastive-bounds --output docs/cli.md
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = "typer contrastive_bounds.properties.cli._app utils docs --name contrastive-bounds --output docs/cli.md"


@pytest.mark.slow
def test_cli_page_is_up_to_date(tmp_path: Path) -> None:
    """docs/cli.md equals what typer generates from the current command line."""
    out = tmp_path / "cli.md"
    proc = subprocess.run([sys.executable, "-m", "typer", "contrastive_bounds.properties.cli._app", "utils", "docs",
                           "--name", "contrastive-bounds", "--output", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == (ROOT / "docs" / "cli.md").read_text(), f"docs/cli.md is stale; run: {REGENERATE}"


def test_cli_page_lists_every_command() -> None:
    """docs/cli.md names every command and command group."""
    from contrastive_bounds.properties.cli._app import command_names

    text = (ROOT / "docs" / "cli.md").read_text()
    names = command_names()  # the commands are loaded lazily: the table of the app lists them
    assert len(names) >= 9
    for name in names:
        assert f"## `contrastive-bounds {name}`" in text, name
