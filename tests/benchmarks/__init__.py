"""The benchmarks' own pieces (not their speed)."""
