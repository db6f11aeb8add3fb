"""salience: a memory engine for AI agents.

>>> from salience import Memory
>>> memory = Memory.open()                # $SALIENCE_HOME/salience.db
>>> memory.remember("The API uses port 8080 in staging", tags=["project:api"])
"""

import importlib

from salience.errors import (
    AccessError,
    ConfigError,
    ConflictError,
    EmbedderError,
    ForbiddenError,
    ImportFormatError,
    InvalidInputError,
    LayerError,
    LLMError,
    NotASalienceDatabaseError,
    NotFoundError,
    OverLimitError,
    PackError,
    ReadOnlyLayerError,
    RemoteError,
    SalienceError,
    SchemaTooNewError,
    StoreBusyError,
    StoreDamagedError,
    StoreError,
    StoreReadOnlyError,
    TooManyJobsError,
)

_LAZY = {
    "ALL_USERS": "salience.models",
    "ApiKey": "salience.models",
    "AuditEntry": "salience.models",
    "BriefedMemory": "salience.models",
    "Briefing": "salience.models",
    "BriefingLog": "salience.models",
    "BriefingLogEntry": "salience.models",
    "Config": "salience.config",
    "ConsolidationReport": "salience.models",
    "ContextScore": "salience.scores",
    "CopyReport": "salience.models",
    "DayCount": "salience.models",
    "Decision": "salience.models",
    "Degraded": "salience.models",
    "EvalReport": "salience.models",
    "Feedback": "salience.models",
    "GraphEdge": "salience.models",
    "Grant": "salience.models",
    "Hit": "salience.models",
    "ImportResult": "salience.models",
    "Job": "salience.models",
    "JobState": "salience.models",
    "LayerMount": "salience.models",
    "MaintenanceReport": "salience.models",
    "Memory": "salience.engine.memory",
    "MemoryGraph": "salience.models",
    "MemoryRecord": "salience.models",
    "Metrics": "salience.models",
    "MigrationReport": "salience.models",
    "NewKey": "salience.models",
    "Moved": "salience.models",
    "Outcome": "salience.models",
    "PackImport": "salience.models",
    "PackManifest": "salience.models",
    "Probe": "salience.models",
    "Space": "salience.models",
    "Profile": "salience.profiles.base",
    "Recalled": "salience.models",
    "Run": "salience.models",
    "Session": "salience.models",
    "SessionStart": "salience.models",
    "Stats": "salience.models",
    "Status": "salience.models",
    "Trace": "salience.models",
    "TraceHit": "salience.models",
    "UpdateLink": "salience.models",
    "Variant": "salience.models",
    "WriteResult": "salience.models",
    "Client": "salience.client",
    "evaluate": "salience.evaluation",
}
"""Where each public name lives (imported on first use: :func:`__getattr__`)."""

__version__ = "0.1.0"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from salience.client import Client
    from salience.config import Config
    from salience.engine.memory import Memory
    from salience.evaluation import evaluate
    from salience.models import (
        ALL_USERS,
        ApiKey,
        AuditEntry,
        BriefedMemory,
        Briefing,
        BriefingLog,
        BriefingLogEntry,
        ConsolidationReport,
        CopyReport,
        DayCount,
        Decision,
        Degraded,
        EvalReport,
        Feedback,
        Grant,
        GraphEdge,
        Hit,
        ImportResult,
        Job,
        JobState,
        LayerMount,
        MaintenanceReport,
        MemoryGraph,
        MemoryRecord,
        Metrics,
        MigrationReport,
        Moved,
        NewKey,
        Outcome,
        PackImport,
        PackManifest,
        Probe,
        Recalled,
        Run,
        Session,
        SessionStart,
        Space,
        Stats,
        Status,
        Trace,
        TraceHit,
        UpdateLink,
        Variant,
        WriteResult,
    )
    from salience.profiles.base import Profile
    from salience.scores import ContextScore
    from salience.wire.verbs import Verbs

    def _a_memory_answers_every_verb(memory: Memory) -> Verbs:
        return memory  # mypy: Memory satisfies the protocol

    def _a_client_answers_every_verb(client: Client) -> Verbs:
        return client  # mypy: Client satisfies the protocol


def __getattr__(name: str) -> object:
    """Each name is imported on first use: ``import salience`` (every CLI call and hook does)
    stays light, and ``salience.Client`` brings httpx only when used."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'salience' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "ALL_USERS",
    "AccessError",
    "ApiKey",
    "AuditEntry",
    "BriefedMemory",
    "Briefing",
    "BriefingLog",
    "BriefingLogEntry",
    "Client",
    "Config",
    "ConfigError",
    "ConflictError",
    "ConsolidationReport",
    "ContextScore",
    "CopyReport",
    "DayCount",
    "Decision",
    "Degraded",
    "EmbedderError",
    "EvalReport",
    "Feedback",
    "ForbiddenError",
    "Grant",
    "GraphEdge",
    "Hit",
    "ImportFormatError",
    "ImportResult",
    "InvalidInputError",
    "Job",
    "JobState",
    "LLMError",
    "LayerError",
    "LayerMount",
    "MaintenanceReport",
    "Memory",
    "MemoryGraph",
    "MemoryRecord",
    "Metrics",
    "MigrationReport",
    "Moved",
    "NewKey",
    "NotASalienceDatabaseError",
    "NotFoundError",
    "Outcome",
    "OverLimitError",
    "PackError",
    "PackImport",
    "PackManifest",
    "Probe",
    "Profile",
    "ReadOnlyLayerError",
    "Recalled",
    "RemoteError",
    "Run",
    "SalienceError",
    "SchemaTooNewError",
    "Session",
    "SessionStart",
    "Space",
    "Stats",
    "Status",
    "StoreBusyError",
    "StoreDamagedError",
    "StoreError",
    "StoreReadOnlyError",
    "TooManyJobsError",
    "Trace",
    "TraceHit",
    "UpdateLink",
    "Variant",
    "WriteResult",
    "__version__",
    "evaluate",
]
