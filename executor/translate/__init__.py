"""Substrait to PySpark: relations, expressions, functions, literals and types, and which nodes can run."""
