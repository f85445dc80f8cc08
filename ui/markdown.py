"""Plain text in Streamlit's Markdown labels, help texts and captions, shown as written."""

from __future__ import annotations

import re

_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_$[]<>~#|"})
#: Where Streamlit's Markdown makes a link of plain text, a web or mail address (escapes do not stop it):
#: an invisible word joiner there keeps it text.
_ADDRESS = re.compile(r"(?i)\b(https?|ftp|mailto|www)(?=[:.])|(?=@)")
WORD_JOINER = "\u2060"
#: A code span as messages write names in them: `orders`, on one line.
_CODE_SPAN = re.compile(r"(`[^`\n]+`)")


def md_escape(text: str) -> str:
    """Plain text made safe for a Markdown label (no accidental italics, links or formulas)."""
    return unlinked(text).translate(_MARKDOWN)


def unlinked(text: str) -> str:
    """``text`` with a :data:`WORD_JOINER` where Markdown would read a web or mail address as a link."""
    return _ADDRESS.sub(lambda m: (m.group(1) or "") + WORD_JOINER, text)


def md_message(text: str) -> str:
    """A message (an error's, a task's) made safe as :func:`md_escape` makes text, its code spans
    (`` `no_such_table` ``) kept: they show as code, their text as written."""
    return "".join(part if i % 2 else md_escape(part) for i, part in enumerate(_CODE_SPAN.split(text)))
