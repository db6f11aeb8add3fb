"""The engine: `Memory`, the facade every face calls, and its verb groups."""
