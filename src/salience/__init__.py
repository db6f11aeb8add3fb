"""salience: a memory engine for AI agents.

>>> from salience import Memory
>>> memory = Memory.open()                # $SALIENCE_HOME/salience.db
>>> memory.remember("The API uses port 8080 in staging", tags=["project:api"])
"""

from salience.config import Config
from salience.engine.memory import Memory
from salience.errors import (
    ConfigError,
    ConflictError,
    ImportFormatError,
    InvalidInputError,
    LayerError,
    LLMError,
    NotASalienceDatabaseError,
    NotFoundError,
    PackError,
    ReadOnlyLayerError,
    SalienceError,
    SchemaTooNewError,
    StoreBusyError,
    StoreDamagedError,
    StoreError,
    StoreReadOnlyError,
)
from salience.models import (
    ALL_USERS,
    Hit,
    ImportResult,
    MemoryRecord,
    Outcome,
    Stats,
    Status,
    WriteResult,
)

__version__ = "0.1.0"

__all__ = [
    "ALL_USERS",
    "Config",
    "ConfigError",
    "ConflictError",
    "Hit",
    "ImportFormatError",
    "ImportResult",
    "InvalidInputError",
    "LLMError",
    "LayerError",
    "Memory",
    "MemoryRecord",
    "NotASalienceDatabaseError",
    "NotFoundError",
    "Outcome",
    "PackError",
    "ReadOnlyLayerError",
    "SalienceError",
    "SchemaTooNewError",
    "Stats",
    "Status",
    "StoreBusyError",
    "StoreDamagedError",
    "StoreError",
    "StoreReadOnlyError",
    "WriteResult",
    "__version__",
]
