"""The live-producer check: a real producer's plans against its own engine (queries in ``sql/``)."""
