"""Jobs on Spark a person asks for: run a node, step through a plan, profile its row counts, compare two outputs."""
