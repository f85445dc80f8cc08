"""Streamlit widgets shared by the pages. Thin: every decision is made in ``viz`` or ``executor``."""
