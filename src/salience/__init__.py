"""salience: a memory engine for AI agents.

>>> from salience import Memory
>>> memory = Memory.open()                # $SALIENCE_HOME/salience.db
>>> memory.remember("The API uses port 8080 in staging", tags=["project:api"])
"""

from salience.config import Config
from salience.engine.memory import Memory
from salience.errors import (
    AccessError,
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
    RemoteError,
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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from salience.client import Client


def __getattr__(name: str) -> object:
    """``salience.Client`` is imported on first use (it brings httpx)."""
    if name == "Client":
        from salience.client import Client

        return Client
    raise AttributeError(f"module 'salience' has no attribute {name!r}")


__all__ = [
    "ALL_USERS",
    "AccessError",
    "Client",
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
    "RemoteError",
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
