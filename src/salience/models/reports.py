"""What the verbs that change many memories at once report: consolidation, maintenance, an
import from another system, a migration, a knowledge pack; a decision, and a key just made."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from salience.errors import PackError

if TYPE_CHECKING:
    from salience.models import ApiKey, ImportResult, LayerMount, MemoryRecord


from salience.models import EXTRACTIVE


@dataclass(frozen=True)
class GroupPlan:
    """What consolidation does with one group: create an insight, or boost one."""

    members: tuple[str, ...]
    action: str  # "create", "boost", or "rederive" (a new version of a stale insight)
    insight_id: str | None  # the boosted insight, or the one created (None in a dry run)
    content: str
    importance: float
    similarity: float | None = None
    summary: str = EXTRACTIVE  # how a created insight's text was made: extractive or llm
    note: str | None = None
    replaces: str | None = None  # the stale insight a "rederive" replaces


@dataclass(frozen=True)
class ConsolidationReport:
    """A consolidation run: every group of 3+ and what happened to it."""

    dry_run: bool
    groups: tuple[GroupPlan, ...] = ()
    candidates: int = 0


@dataclass(frozen=True)
class ImportanceChange:
    """One memory whose importance maintenance lowered."""

    memory_id: str
    before: float
    after: float


@dataclass(frozen=True)
class MaintenanceReport:
    """What a maintenance run changed (or, in a dry run, would change)."""

    dry_run: bool
    decayed: tuple[ImportanceChange, ...] = ()
    forgotten: tuple[str, ...] = ()
    orphans: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        """Whether anything was (or would be) changed."""
        return bool(self.decayed or self.forgotten or self.orphans)


@dataclass(frozen=True)
class MigrationReport:
    """What an import from another system found and did (or, dry, would do).

    ``by_type``: the memories imported (or to be), by salience type; ``merged``: (source id,
    the id of the memory it duplicates); ``refused``: (source id, why: a secret's kind);
    ``skipped``: (what, why) the source held but could not be read; ``unmappable``: source
    fields that held values salience has no place for, with how many records had one."""

    system: str
    dry_run: bool
    found: int
    by_type: dict[str, int]
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    merged: tuple[tuple[str, str], ...] = ()
    refused: tuple[tuple[str, str], ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    unmappable: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CopyReport:
    """What was copied."""

    memories: int
    vectors: int
    audit_entries: int
    sessions: int
    api_keys: int
    layers: int
    spaces: int = 0


@dataclass(frozen=True)
class NewKey:
    """A key just made: the record stored, and the key itself (shown once)."""

    record: ApiKey
    key: str


@dataclass(frozen=True)
class Decision:
    """A decision as aide shows one."""

    topic: str
    decision: str
    rationale: str | None
    precedence: int
    memory: MemoryRecord


PACK_FORMAT = "salience-pack"


@dataclass(frozen=True)
class PackIdentity:
    """What a pack is, as its author names it (eidet's ``pack_id``, ``name``, ``version``):
    kept in the manifest, so an importer can tell which pack and which version it holds."""

    id: str
    name: str
    version: str

    def __post_init__(self) -> None:
        for label, value in (("id", self.id), ("name", self.name), ("version", self.version)):
            if not isinstance(value, str) or not value.strip() or len(value) > 200:
                raise PackError(f"a pack's {label} is 1 to 200 characters of text")

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "version": self.version}


@dataclass(frozen=True)
class PackManifest:
    """What a pack says about itself."""

    version: int
    created_at: str
    records: int
    by_type: dict[str, int]
    embedder: str | None
    dimensions: int | None
    filters: dict[str, Any] = field(default_factory=dict)
    checksums: dict[str, str] = field(default_factory=dict)
    identity: PackIdentity | None = None

    def to_json(self) -> dict[str, Any]:
        """The manifest document, keys in a fixed order (``pack`` only when it has one)."""
        named = {} if self.identity is None else {"pack": self.identity.to_json()}
        return {
            "format": PACK_FORMAT,
            "version": self.version,
            **named,
            "created_at": self.created_at,
            "filters": self.filters,
            "counts": {"records": self.records, "by_type": self.by_type},
            "embedder": None
            if self.embedder is None
            else {"identity": self.embedder, "dimensions": self.dimensions},
            "checksums": self.checksums,
        }


@dataclass(frozen=True)
class PackImport:
    """What importing a pack did: the import's counts, what became of vectors (``kept``: the
    pack's, same embedder; ``embedded``: made anew by the configured embedder; ``none``: no
    embedder is configured), and the layer it was mounted as (None: imported into local)."""

    result: ImportResult
    manifest: PackManifest
    vectors: str
    mount: LayerMount | None = None
