"""Recall: fusion of full-text and vector hits, exact and approximate vector search."""
