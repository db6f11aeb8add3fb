"""Briefings: injection policies, the columnar snapshot they score, sessions."""
