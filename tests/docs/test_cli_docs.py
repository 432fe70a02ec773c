"""docs/cli.md is generated from the command line, must match it, and must read right both as Markdown source and
as the built site.

Regenerate after changing a command, an option or a help text with::

    python -m contrastive_bounds.properties.cli._cli_docs docs/cli.md

(typer's generator, :func:`typer.cli.get_docs_for_click`, on the help texts as the terminal prints them; plain
``typer ... utils docs`` writes ``>=`` as ``&gt;=`` in the Markdown file.)
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = "python -m contrastive_bounds.properties.cli._cli_docs docs/cli.md"


@pytest.mark.slow
def test_cli_page_is_up_to_date(tmp_path: Path) -> None:
    """docs/cli.md equals what the generator writes from the current command line (in a fresh interpreter)."""
    out = tmp_path / "cli.md"
    proc = subprocess.run([sys.executable, "-m", "contrastive_bounds.properties.cli._cli_docs", str(out)],
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


def test_cli_page_reads_as_text_and_renders_the_same_in_the_site() -> None:
    """The Markdown source holds no HTML entity (it held 91 of them: `&gt;`, `&lt;`, `&#x27;`, `&quot;`), every
    tag-like placeholder outside code is a code span, and Python-Markdown (what mkdocs renders with) shows the
    same characters the source does: `>= 0`, `V < V_min`, `m<id>`, the default folder's `<landscape>-<hash ...>`."""
    import markdown

    source = (ROOT / "docs" / "cli.md").read_text()
    assert re.findall(r"&(?:[a-zA-Z]+|#x?[0-9a-fA-F]+);", source) == []
    prose = re.sub(r"`[^`]*`", "", re.sub(r"^```.*?^```", "", source, flags=re.S | re.M))
    assert re.findall(r"<[A-Za-z/]", prose) == []
    rendered = html.unescape(re.sub(r"<[^>]+>", "", markdown.markdown(source)))
    for shown in ("H* of the landscape (>= 0)", "success: V < V_min + delta", "a minimum m<id> of --search",
                  "contrastive-bounds-landscape/<landscape>-<hash of landscape and settings>",
                  "quick (<= 5 min on 2 cores)", "lists NAME's parameters", "c=VALUE, optionally t0=VALUE"):
        assert shown in source.replace("`", "") and shown in rendered, shown


def test_markdown_safe_makes_placeholders_code_and_leaves_the_rest() -> None:
    """Only tag-like `<word ...>` outside code becomes a code span; comparisons, code spans and fenced blocks stay."""
    from contrastive_bounds.properties.cli._cli_docs import markdown_safe

    assert markdown_safe("x (default: a/<b>-<c d>) and m<id>, V < 1, T >= 0") == \
        "x (default: `a/<b>-<c d>`) and `m<id>`, V < 1, T >= 0"
    assert markdown_safe("* `--start <str>`: <= 5") == "* `--start <str>`: <= 5"
    fenced = "```console\n$ cmd <arg>\n```"
    assert markdown_safe(fenced) == fenced


def test_every_help_text_prints_as_written() -> None:
    """The terminal renders help texts as rich markup, which silently drops a bracketed word such as `[t0=VALUE]`
    (it did, in `schedule --help`); docs/cli.md takes the texts as written, so they must be the same."""
    import click
    from rich.text import Text

    from contrastive_bounds.properties.cli._app import command_names, load_command

    def helps(cmd: click.Command, ctx: click.Context, where: str):
        yield where, cmd.help or ""
        for p in cmd.params:
            yield f"{where} {p.name}", getattr(p, "help", None) or ""
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                yield from helps(cmd.get_command(ctx, name), ctx, f"{where} {name}")

    texts = [(where, h) for name in command_names() for where, h in helps(load_command(name), click.Context(
        load_command(name)), name)]
    assert len(texts) > 100
    assert [(where, h) for where, h in texts if Text.from_markup(h).plain != h] == []


def test_command_lists_give_each_command_its_whole_summary_line() -> None:
    """The command lists of docs/cli.md (top level and ``align``) give each command the first paragraph of its help
    whole, as ``--help`` does, never click's 45-character cut ("Every bound and claim with its source;..."): the
    loaded commands carry it as their ``short_help``."""
    from contrastive_bounds.properties.cli._app import COMMANDS, load_command, _summary_line as summary_line

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    entries = dict(re.findall(r"^\* `([a-z][a-z0-9-]*)`: (.*)$", text.split("## `contrastive-bounds list`")[0], re.M))
    assert entries == {name: help_line for name, (_, help_line) in COMMANDS.items()}
    align = load_command("align")
    listed = dict(re.findall(r"^\* `([a-z][a-z0-9-]*)`: (.*)$",
                             text.split("## `contrastive-bounds align`")[1].split("### ")[0], re.M))
    assert listed and set(listed) == set(align.commands)
    for name, sub in align.commands.items():
        assert sub.get_short_help_str() == listed[name] == summary_line(sub.help)
        assert not listed[name].endswith("...")
    assert summary_line("Line one\n  continues.\n\nMore.") == "Line one continues."
    assert summary_line(None) is None
