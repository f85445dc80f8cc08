"""The plan's graph in the page: the viewer (laid out on the server, pan and zoom) and the click
listener of the in-browser chart it falls back to; their scripts are in ``static/``."""
