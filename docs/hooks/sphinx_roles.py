"""mkdocs hook: render the Sphinx roles of our docstrings (``:func:`x```, ``:class:`~.m.C```) as code.

mkdocstrings renders docstrings as Markdown, where a role shows up as ``:func:<code>x</code>``.
This hook drops the role name and applies Sphinx's display rules: a leading ``~`` shows only the
last component, a leading ``.`` (relative target) is dropped. The result is inline code.
"""

from __future__ import annotations

import re

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const|term|ref):<code>(~?)\.?([^<]+)</code>")


def render_roles(html_text: str) -> str:
    """Replace every rendered Sphinx role in ``html_text`` by its display text as ``<code>``."""
    def one(m: re.Match[str]) -> str:
        target = m.group(2)
        shown = target.rsplit(".", 1)[-1] if m.group(1) else target
        return f"<code>{shown}</code>"

    return _ROLE.sub(one, html_text)


def on_page_content(html_text: str, page, config, files) -> str:  # noqa: ANN001 - mkdocs hook signature
    """Render the roles of the page (API pages: the docstrings)."""
    return render_roles(html_text)
