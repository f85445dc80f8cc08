"""Run any node's subtree of a Substrait plan on Spark (see ``python -m executor --help``)."""
