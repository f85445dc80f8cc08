"""The result grid's script modules loaded while the page is idle, before the first Run.

Streamlit loads an element's script module when the element first shows: a person's first result
(its table, its download buttons, the progress bar before it) would wait for the grid's modules to be
fetched, parsed and run in the browser. The page loads them once it is drawn and idle instead.
"""

from __future__ import annotations

import functools
import json
import os
import re

import streamlit as st

#: Streamlit's own modules a Run draws its result with (and the Run tab its row limit), by the stem of
#: their built file names.
RESULT_MODULES = ("DataFrame", "FileDownload.esm", "NumberInput", "Progress", "ProgressBar", "Quiver")

#: Imports each module by its URL next to Streamlit's main script, once the browser is idle; a module
#: imported again is the same instance, so the grid drawn later finds it ready.
_SCRIPT = """<script>
(() => {
  if (window.__substraitVizPreloaded) return;
  const main = [...document.scripts].map((s) => s.src).find((s) => /\\/static\\/js\\/index\\.[\\w-]+\\.js$/.test(s));
  if (!main) return;
  window.__substraitVizPreloaded = true;
  const load = () => NAMES.forEach((name) => import(new URL(name, main).href).catch(() => {}));
  (window.requestIdleCallback || ((f) => setTimeout(f, 1000)))(load, {timeout: 5000});
})();
</script>"""


@functools.cache
def module_files() -> tuple[str, ...]:
    """The built files of :data:`RESULT_MODULES` in the installed Streamlit (none when its layout differs)."""
    folder = os.path.join(os.path.dirname(st.__file__), "static", "static", "js")
    try:
        files = os.listdir(folder)
    except OSError:
        return ()
    return tuple(
        sorted(f for f in files for stem in RESULT_MODULES if re.fullmatch(re.escape(stem) + r"\.[\w-]+\.js", f))
    )


def preload_result_modules() -> None:
    """At the sidebar's end: the script that loads the result grid's modules once the page is idle."""
    files = module_files()
    if files:
        st.sidebar.html(_SCRIPT.replace("NAMES", json.dumps(list(files))), unsafe_allow_javascript=True)
