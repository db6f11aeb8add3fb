"""The HTTP API's request and response models (what ``/openapi.json`` describes).

Requests forbid unknown fields, so a typo is a 422 naming it rather than a silently ignored
value. Responses mirror the library's values field for field (:func:`memory_out` and friends
convert them), so the Python client can rebuild the same types.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from salience.clock import as_utc, parse_time
from salience.config import RECALL_SETTINGS

Unit = Annotated[float, Field(ge=0, le=1)]
ShortText = Annotated[str, Field(min_length=1, max_length=512)]
Limit = Annotated[int, Field(ge=1, le=1000)]
SpaceName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=63,
        description="A space's name: lowercase letters, digits, '.', '_', '-'.",
    ),
]
SPACE_DOC = "A space the caller may use (its grant): the memory goes there, not to the user."


def _moment(value: object) -> datetime:
    """A time by salience's one rule (:mod:`salience.clock`): ISO 8601 text, no offset
    meaning UTC. Numbers are refused: seconds or milliseconds since when would be a guess."""
    if isinstance(value, datetime):
        return as_utc(value)
    if isinstance(value, str):
        return parse_time(value, field="the time")
    raise ValueError("the time must be ISO 8601 text (e.g. 2026-04-20T12:00:00Z)")


MOMENT_DOC = "An ISO 8601 time; without an offset it is UTC (2026-04-20T12:00:00 = ...Z)."
Moment = Annotated[
    datetime,
    BeforeValidator(_moment),
    WithJsonSchema({"type": "string", "format": "date-time", "description": MOMENT_DOC}),
]
"""Every time a request gives: parsed as the CLI, MCP and the library parse it."""


class Request(BaseModel):
    """Base of every request body: unknown fields are an error."""

    model_config = ConfigDict(extra="forbid")


class RememberIn(Request):
    content: str = Field(min_length=1, description="The memory's text (secrets are refused).")
    type: ShortText | None = None
    title: ShortText | None = None
    tags: list[ShortText] = Field(default_factory=list, max_length=64)
    project: ShortText | None = None
    topic_key: ShortText | None = None
    source: (
        Literal["user", "agent", "tool", "consolidation", "import", "pack", "remote", "system"]
        | None
    ) = None
    importance: Unit | None = None
    confidence: Unit | None = None
    priority: Annotated[float, Field(ge=-1e6, le=1e6)] | None = None
    session_id: ShortText | None = None
    entities: list[ShortText] = Field(default_factory=list, max_length=64)
    enabled: bool | None = None
    force: bool = Field(False, description="Bypass the signal gate (never the secret scanner).")
    profile: ShortText | None = None
    space: SpaceName | None = Field(None, description=SPACE_DOC)
    agent: ShortText | None = Field(
        None, description="The agent that writes (a key that names one decides)."
    )


class UpdateIn(Request):
    content: str | None = Field(None, min_length=1)
    type: ShortText | None = None
    title: ShortText | None = None
    tags: list[ShortText] | None = Field(None, max_length=64)
    project: ShortText | None = None
    topic_key: ShortText | None = None
    importance: Unit | None = None
    confidence: Unit | None = None
    priority: Annotated[float, Field(ge=-1e6, le=1e6)] | None = None
    enabled: bool | None = None


class SupersedeIn(Request):
    content: str = Field(min_length=1)
    type: ShortText | None = None
    title: ShortText | None = None
    tags: list[ShortText] | None = Field(None, max_length=64)
    importance: Unit | None = None


class ForgetIn(Request):
    reason: ShortText = "forgotten on request"


class FeedbackIn(Request):
    used: bool


class SearchIn(Request):
    query: str = Field(min_length=1, max_length=4096)
    limit: Limit = 10
    profile: ShortText | None = None
    project: ShortText | None = None
    types: list[ShortText] = Field(default_factory=list, max_length=32)
    types_exclude: list[ShortText] = Field(default_factory=list, max_length=32)
    tags: list[ShortText] = Field(default_factory=list, max_length=32)
    as_of: Moment | None = None
    touch: bool | None = Field(None, description="Count an access (default: unless as_of).")
    space: SpaceName | None = Field(
        None, description="Search this space only (default: the user's and every space it reads)."
    )
    agent: ShortText | None = Field(None, description="Only what this agent wrote.")


class BriefingIn(Request):
    profile: ShortText | None = None
    project: ShortText | None = None
    session_id: ShortText | None = None
    budget: Annotated[int, Field(ge=1, le=1_000_000)] | None = None
    as_of: Moment | None = None
    space: SpaceName | None = Field(
        None, description="Brief this space only (default: the user's and every space it reads)."
    )
    record: bool = Field(
        True, description="Keep it in the briefing log (false: a preview; a read-only key never)."
    )
    manifest: bool = Field(
        True,
        description="Answer every candidate's fate (false: an empty manifest, for a caller that "
        "wants the text alone, such as a session-start hook: at 10k memories the manifest "
        "is over a megabyte).",
    )


class EvalIn(Request):
    against_label: ShortText = "alternative"
    against_profile: ShortText | None = None
    against_as_of: Moment | None = None
    against_recall_prior: Annotated[float, Field(ge=0, le=1)] | None = None
    against_embedder: Literal["none", "minilm"] | None = Field(
        None,
        description="none: full text alone; minilm: the bundled model, on a scratch copy of "
        "the caller's memories embedded again (as long as a reindex).",
    )
    against_settings: Annotated[dict[ShortText, ShortText], Field(max_length=16)] | None = Field(
        None,
        description="Settings changed for the alternative, as the environment gives them: "
        + ", ".join(RECALL_SETTINGS)
        + " (e.g. rae_weights: semantic=0.8,recency=0.2).",
    )
    probes: Annotated[int, Field(ge=1, le=1000)] = 50
    entities: bool = False
    save: bool = False


class SessionEndIn(Request):
    summary: str = Field(min_length=1)


class DryRunIn(Request):
    dry_run: bool = False
    as_of: Moment | None = None
