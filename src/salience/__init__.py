"""salience: a memory engine for AI agents.

>>> from salience import Memory
>>> memory = Memory.open()                # $SALIENCE_HOME/salience.db
>>> memory.remember("The API uses port 8080 in staging", tags=["project:api"])
"""

from salience.briefing.policies import Briefing
from salience.briefing.sessions import SessionStart
from salience.config import Config
from salience.engine.decisions import Decision
from salience.engine.evaluation import EvalReport, Metrics, Moved, Run, Variant
from salience.engine.memory import Memory
from salience.engine.migrating import MigrationReport
from salience.engine.probes import Probe
from salience.engine.record import BriefedMemory, BriefingLog, BriefingLogEntry
from salience.errors import (
    AccessError,
    ConfigError,
    ConflictError,
    EmbedderError,
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
from salience.lifecycle.consolidation import ConsolidationReport
from salience.lifecycle.maintenance import MaintenanceReport
from salience.models import (
    ALL_USERS,
    AuditEntry,
    DayCount,
    GraphEdge,
    Hit,
    ImportResult,
    Job,
    JobState,
    LayerMount,
    MemoryGraph,
    MemoryRecord,
    Outcome,
    Session,
    Stats,
    Status,
    WriteResult,
)
from salience.profiles.base import Profile
from salience.scores import ContextScore
from salience.sharing.packs import PackImport, PackManifest
from salience.stores.traces import Feedback, Trace, TraceHit

__version__ = "0.1.0"

TYPE_CHECKING = False
if TYPE_CHECKING:
    from salience.client import Client
    from salience.wire.verbs import Verbs

    def _a_memory_answers_every_verb(memory: Memory) -> Verbs:
        return memory  # mypy: Memory satisfies the protocol

    def _a_client_answers_every_verb(client: Client) -> Verbs:
        return client  # mypy: Client satisfies the protocol


def __getattr__(name: str) -> object:
    """``salience.Client`` is imported on first use (it brings httpx)."""
    if name == "Client":
        from salience.client import Client

        return Client
    raise AttributeError(f"module 'salience' has no attribute {name!r}")


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
    "EmbedderError",
    "EvalReport",
    "Feedback",
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
    "PackError",
    "PackImport",
    "PackManifest",
    "Probe",
    "Profile",
    "ReadOnlyLayerError",
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
    "Trace",
    "TraceHit",
    "Variant",
    "WriteResult",
    "__version__",
]
