"""Streamlit widgets shared by the pages. Thin: every decision is made in ``viz`` or ``executor``.

``state`` holds what a browser session holds, ``graph`` draws the plan's graph, ``panels`` the
inspector's panels, ``tasks`` the background work they start; ``page`` is a page's start,
``markdown`` makes plain text safe for Streamlit's labels."""
