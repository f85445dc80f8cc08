"""Where a plan's tables come from: the catalog, the data roots, column checks, and the sample data."""
