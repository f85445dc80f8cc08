"""The inspector's panels, one module each (Run tab, row counts, output comparison, Spark beside
DataFusion, column lineage, schema table, report button), and the boundary each panel draws its
own failure in."""
