"""The shared Spark session and its JVM: start-up, warm-up, turns on Spark, and tasks left by a cancelled job."""
