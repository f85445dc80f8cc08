"""The pure core (viz): loading, schemas, properties, lineage, descriptions, rendering, the corpora."""
