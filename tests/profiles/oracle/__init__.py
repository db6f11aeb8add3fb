"""The briefing policies as they were before they worked on columns: one record at a time,
in plain Python, the slow and obvious way. tests/profiles/test_columns_agree.py checks that
each profile's columnar policy gives exactly the same briefing and manifest as these on
random stores. They score with the profiles' scalar ``context_score`` (itself pinned to
REFERENCE.md's vectors by the profile tests).
"""
