"""docs/cli.md, the command-line reference: typer's generator, written as Markdown that reads the same as text.

``typer ... utils docs`` renders each help text through rich's HTML export, which writes ``>``, ``<``, ``'``
and ``"`` as HTML entities (``&gt;=``): right in a browser, wrong in the Markdown file itself. This module
runs the same generator (:func:`typer.cli.get_docs_for_click`) on the help texts as the terminal prints
them and makes only what Markdown would misread safe: an angle-bracket placeholder such as ``m<id>``, which
Markdown takes for an HTML tag and drops, becomes a code span (`` `m<id>` ``). ``>=``, ``<=``, ``<`` before
a space, quotes and apostrophes stay as typed: Markdown shows them as they are.

Regenerate after changing a command, an option or a help text::

    python -m contrastive_bounds.properties.cli._cli_docs docs/cli.md
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

__all__ = ["cli_reference_markdown", "markdown_safe"]

#: a run of text holding an HTML-tag-like placeholder (``m<id>``, ``folder/<landscape>-<hash of it>``), up to the
#: spaces, brackets or commas around it
_PLACEHOLDER = re.compile(r"[^\s()`,;]*<[A-Za-z][^<>`]*>(?:[^\s()`,;<]*<[A-Za-z][^<>`]*>)*[^\s()`,;]*")
_CODE_SPAN = re.compile(r"(`[^`]*`)")


def markdown_safe(text: str) -> str:
    """``text`` (Markdown) with every tag-like ``<word ...>`` outside code made a code span (Markdown would take it
    for raw HTML and show nothing); fenced blocks and code spans are left as they are.

    Examples:
      >>> markdown_safe("a minimum m<id> of --search; V < V_min; `--start <str>`")
      'a minimum `m<id>` of --search; V < V_min; `--start <str>`'
    """
    out, fenced = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and not line.startswith("```"):
            line = "".join(part if part.startswith("`") else _PLACEHOLDER.sub(lambda m: f"`{m.group(0)}`", part)
                           for part in _CODE_SPAN.split(line))
        out.append(line)
    return "\n".join(out)


def cli_reference_markdown() -> str:
    """docs/cli.md as it must be now: typer's Markdown of every command and option of ``contrastive-bounds``
    (help texts as plain text, not rich's HTML), through :func:`markdown_safe`."""
    import click
    import typer
    from typer.cli import get_docs_for_click

    from contrastive_bounds.properties.cli._app import app

    command = typer.main.get_command(app)
    # a context without typer's markup-mode key: the help texts go in as written, not through rich's HTML export
    docs = get_docs_for_click(obj=command, ctx=click.Context(command), name="contrastive-bounds")
    return markdown_safe(docs.strip()) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m contrastive_bounds.properties.cli._cli_docs OUTPUT.md")
    Path(sys.argv[1]).write_text(cli_reference_markdown(), encoding="utf-8")
