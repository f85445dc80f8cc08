"""The second engine (DataFusion) and the checks across engines: bisect, portability, SQL to plan, row comparison."""
