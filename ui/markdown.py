"""Plain text in Streamlit's Markdown labels, help texts and captions, shown as written."""

from __future__ import annotations

import re

_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_$[]<>~#|"})
#: A code span as messages write names in them: `orders`, on one line.
_CODE_SPAN = re.compile(r"(`[^`\n]+`)")


def md_escape(text: str) -> str:
    """Plain text made safe for a Markdown label (no accidental italics, links or formulas)."""
    return text.translate(_MARKDOWN)


def md_message(text: str) -> str:
    """A message (an error's, a task's) made safe as :func:`md_escape` makes text, its code spans
    (`` `no_such_table` ``) kept: they show as code, their text as written."""
    return "".join(part if i % 2 else md_escape(part) for i, part in enumerate(_CODE_SPAN.split(text)))
