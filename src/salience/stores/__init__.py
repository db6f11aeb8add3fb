"""Storage backends. Every backend implements :class:`salience.stores.base.Store`.

All SQL in salience lives in this package.
"""

from salience.stores.base import MemoryFilter, Store

__all__ = ["MemoryFilter", "Store"]
