"""Real-data posteriors and their reference runs (benchmark material; see README.md)."""
