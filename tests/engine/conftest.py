"""engine tests run on both stores (tests/both_stores.py)."""

from tests.both_stores import config, gated

__all__ = ["config", "gated"]
