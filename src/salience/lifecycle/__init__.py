"""A memory's life after it is written: feedback, consolidation, maintenance, LLM summaries."""
