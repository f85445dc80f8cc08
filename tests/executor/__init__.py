"""The executor: translation to Spark, running, profiling, the catalog, Spark turns and sessions."""
