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
    "AuditEntry": "salience.models",
    "BriefedMemory": "salience.engine.record",
    "Briefing": "salience.briefing.policies",
    "BriefingLog": "salience.engine.record",
    "BriefingLogEntry": "salience.engine.record",
    "Config": "salience.config",
    "ConsolidationReport": "salience.lifecycle.consolidation",
    "ContextScore": "salience.scores",
    "DayCount": "salience.models",
    "Decision": "salience.engine.decisions",
    "Degraded": "salience.models",
    "EvalReport": "salience.engine.evaluation",
    "Feedback": "salience.stores.traces",
    "GraphEdge": "salience.models",
    "Hit": "salience.models",
    "ImportResult": "salience.models",
    "Job": "salience.models",
    "JobState": "salience.models",
    "LayerMount": "salience.models",
    "MaintenanceReport": "salience.lifecycle.maintenance",
    "Memory": "salience.engine.memory",
    "MemoryGraph": "salience.models",
    "MemoryRecord": "salience.models",
    "Metrics": "salience.engine.evaluation",
    "MigrationReport": "salience.engine.migrating",
    "Moved": "salience.engine.evaluation",
    "Outcome": "salience.models",
    "PackImport": "salience.sharing.packs",
    "PackManifest": "salience.sharing.packs",
    "Probe": "salience.engine.probes",
    "Profile": "salience.profiles.base",
    "Recalled": "salience.models",
    "Run": "salience.engine.evaluation",
    "Session": "salience.models",
    "SessionStart": "salience.briefing.sessions",
    "Stats": "salience.models",
    "Status": "salience.models",
    "Trace": "salience.stores.traces",
    "TraceHit": "salience.stores.traces",
    "UpdateLink": "salience.models",
    "Variant": "salience.engine.evaluation",
    "WriteResult": "salience.models",
    "Client": "salience.client",
}
"""Where each public name lives (imported on first use: :func:`__getattr__`)."""

__version__ = "0.1.0"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from salience.briefing.policies import Briefing
    from salience.briefing.sessions import SessionStart
    from salience.client import Client
    from salience.config import Config
    from salience.engine.decisions import Decision
    from salience.engine.evaluation import EvalReport, Metrics, Moved, Run, Variant
    from salience.engine.memory import Memory
    from salience.engine.migrating import MigrationReport
    from salience.engine.probes import Probe
    from salience.engine.record import BriefedMemory, BriefingLog, BriefingLogEntry
    from salience.lifecycle.consolidation import ConsolidationReport
    from salience.lifecycle.maintenance import MaintenanceReport
    from salience.models import (
        ALL_USERS,
        AuditEntry,
        DayCount,
        Degraded,
        GraphEdge,
        Hit,
        ImportResult,
        Job,
        JobState,
        LayerMount,
        MemoryGraph,
        MemoryRecord,
        Outcome,
        Recalled,
        Session,
        Stats,
        Status,
        UpdateLink,
        WriteResult,
    )
    from salience.profiles.base import Profile
    from salience.scores import ContextScore
    from salience.sharing.packs import PackImport, PackManifest
    from salience.stores.traces import Feedback, Trace, TraceHit
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
    "DayCount",
    "Decision",
    "Degraded",
    "EmbedderError",
    "EvalReport",
    "Feedback",
    "ForbiddenError",
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
]
