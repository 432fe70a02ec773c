"""mkdocs hook: render the LaTeX of pymdownx.arithmatex as MathML at build time (no CDN, no JavaScript).

arithmatex (generic mode) leaves ``<span class="arithmatex">\\(...\\)</span>`` and
``<div class="arithmatex">\\[...\\]</div>``; this hook converts their TeX with latex2mathml (pure
Python) into ``<math>`` elements, which every current browser renders natively. A formula that
latex2mathml cannot convert is a build error (``mkdocs build --strict`` fails on the warning).
"""

from __future__ import annotations

import html
import logging
import re

from latex2mathml.converter import convert

log = logging.getLogger("mkdocs.hooks.mathml")

_MATH = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)


def tex_to_mathml(tex: str, display: bool) -> str:
    """MathML for one formula (``display`` for block maths)."""
    return convert(tex, display="block" if display else "inline")


def _replace(match: re.Match[str], where: str) -> str:
    tag, body = match.group(1), html.unescape(match.group(2)).strip()
    display = tag == "div" or body.startswith("\\[")
    tex = body[2:-2] if body[:2] in ("\\(", "\\[") else body.strip("$")
    try:
        return tex_to_mathml(tex.strip(), display)
    except Exception as exc:  # latex2mathml raises its own types; report and keep the source
        log.warning("%s: cannot render $%s$ as MathML (%s)", where, tex, exc)
        return f"<code>{html.escape(tex)}</code>"


def on_page_content(html_text: str, page, config, files) -> str:  # noqa: ANN001 - mkdocs hook signature
    """Replace every arithmatex formula of the page with MathML."""
    return _MATH.sub(lambda m: _replace(m, page.file.src_path), html_text)
