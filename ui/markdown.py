"""Plain text in Streamlit's Markdown labels, help texts and captions, shown as written."""

from __future__ import annotations

_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_$[]<>~#|"})


def md_escape(text: str) -> str:
    """Plain text made safe for a Markdown label (no accidental italics, links or formulas)."""
    return text.translate(_MARKDOWN)
