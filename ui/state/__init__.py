"""What a browser session holds: the open plan and its source, the selected node, widget values kept
across pages, the tables the plan runs on, and the shared-plan store behind share links."""
