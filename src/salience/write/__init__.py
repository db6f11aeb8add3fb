"""The write path: record validation, the gates, dedup and entity extraction."""
