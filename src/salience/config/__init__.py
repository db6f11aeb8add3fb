"""Configuration: one frozen :class:`Config`, read once from a file and the environment.

Precedence, lowest first: defaults, ``$SALIENCE_HOME/config.toml`` (keys are the field names),
environment variables. Each field documents itself (``help``) and names its variable
(``env``); docs/configuration.md's settings table is generated from this metadata
(``scripts/gen_docs.py``; a test fails when it is stale).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from salience.config.checks import EMBEDDERS, check
from salience.config.parsing import (
    RAE_SIGNALS,
    RAE_WEIGHT_DEFAULTS,
    default_home,
    parse_bool,
    parse_float,
    parse_int,
    parse_text,
    parse_weights,
    read_file,
    secret,
    setting,
)
from salience.errors import ConfigError

__all__ = [
    "EMBEDDERS",
    "RAE_SIGNALS",
    "RAE_WEIGHT_DEFAULTS",
    "Config",
    "default_home",
    "describe",
]

DB_FILENAME = "salience.db"
CONFIG_FILENAME = "config.toml"
RECALL_SETTINGS = (
    "recall_prior",
    "recall_learned",
    "rae_weights",
    "rae_half_life_hours",
    "aide_scoring_disabled",
    "aide_decay_disabled",
)
"""The settings a recall's scores read (an evaluation may compare with other values)."""
EMBEDDER_SETTINGS = ("embedder_model", "embedder_url")
"""What names another embedder, beside ``embedder`` itself."""


@dataclass(frozen=True)
class Config:
    """Every setting salience reads; build it with :meth:`from_env` or directly."""

    home: Path = field(
        default_factory=lambda: default_home(os.environ),
        metadata={
            "env": "SALIENCE_HOME",
            "help": "Data directory holding salience.db and config.toml "
            "(default $XDG_DATA_HOME/salience or ~/.local/share/salience).",
            "parse": lambda raw, name: Path(str(raw)).expanduser(),
        },
    )
    store_url: str = field(
        default="",
        repr=False,  # a PostgreSQL URL may hold a password
        metadata={
            "env": "SALIENCE_STORE_URL",
            "help": "The store: a SQLite file, directory or sqlite:///path, or "
            "postgresql://user@host/db (pip install 'salience[postgres]'); default "
            "salience.db in the home directory.",
            "parse": parse_text,
        },
    )
    store_read_url: str = field(
        default="",
        repr=False,  # (a password, as above)
        metadata={
            "env": "SALIENCE_STORE_READ_URL",
            "help": "A streaming replica of the PostgreSQL store: recall, briefing, list, "
            "history and the web UI read there once it has replayed the caller's writes; "
            "writes go to the store (docs/store.md, many users).",
            "parse": parse_text,
        },
    )
    read_max_lag_s: float = setting(
        10.0,
        "SALIENCE_READ_MAX_LAG_S",
        "Past this many seconds of replica lag, reads go to the primary until it catches up.",
        parse_float,
    )
    profile: str = setting(
        "salience", "SALIENCE_PROFILE", "Default scoring profile for every command.", parse_text
    )
    user: str = setting(
        "default",
        "SALIENCE_USER",
        "The user every verb acts for when none is named; other users' memories are "
        "invisible to it.",
        parse_text,
    )
    max_content_bytes: int = setting(
        65536, "SALIENCE_MAX_CONTENT_BYTES", "Largest memory content accepted, in bytes.", parse_int
    )
    busy_timeout_ms: int = setting(
        10000,
        "SALIENCE_BUSY_TIMEOUT_MS",
        "How long a write waits for another process's lock before giving up.",
        parse_int,
    )
    updates: str = setting(
        "link",
        "SALIENCE_UPDATES",
        "What a new memory found to change an older one does: link (kept for a person to "
        "decide; of a sure pair the salience profile ranks and briefs the newer first), "
        "supersede (sure pairs at once, where the writer may), off.",
        parse_text,
    )
    signal_gate: bool = setting(
        True,
        "SALIENCE_SIGNAL_GATE",
        "Refuse low-value writes (too short, self-talk, tool output, generic). The secret "
        "scanner has no such switch.",
        parse_bool,
    )
    record: bool = setting(
        True,
        "SALIENCE_RECORD",
        "Keep a record of recalls and briefings, and the feedback that followed, in the store "
        "(salience eval and briefing log read it; 0 turns it off).",
        parse_bool,
    )
    record_days: int = setting(
        90,
        "SALIENCE_RECORD_DAYS",
        "How many days the record of recalls and briefings is kept.",
        parse_int,
    )
    briefing_budget: int = setting(
        1500,
        "SALIENCE_BRIEFING_BUDGET",
        "Token budget of a salience-profile briefing (tokens = ceil(chars / 4)).",
        parse_int,
    )
    aide_scoring_disabled: bool = setting(
        False,
        "AIDE_MEMORY_SCORING_DISABLED",
        "aide profile: no scoring, chronological ULID order (the document's variable).",
        parse_bool,
    )
    aide_decay_disabled: bool = setting(
        False,
        "AIDE_MEMORY_DECAY_DISABLED",
        "aide profile: recency is always 1.0 (the document's variable).",
        parse_bool,
    )
    rae_weights: tuple[tuple[str, float], ...] = setting(
        RAE_WEIGHT_DEFAULTS,
        "SALIENCE_RAE_WEIGHTS",
        "rae profile weights, e.g. semantic=0.6,recency=0.1,importance=0.2,usage=0.1.",
        parse_weights,
    )
    rae_half_life_hours: float = setting(
        24.0,
        "SALIENCE_RAE_HALF_LIFE_HOURS",
        "rae profile: recency half-life in hours.",
        parse_float,
    )
    recall_prior: float = setting(
        0.15,
        "SALIENCE_RECALL_PRIOR",
        "salience profile: weight of the context score (importance, recency, feedback...) in "
        "recall; the rest is query relevance. 0 ranks by relevance alone.",
        parse_float,
    )
    recall_learned: bool = setting(
        True,
        "SALIENCE_RECALL_LEARNED",
        "salience profile: re-rank recall's best 50 candidates with the learned fusion (fitted "
        "on LoCoMo and LongMemEval; docs/scoring.md has its measurements); false: the hand-set "
        "fusion alone.",
        parse_bool,
    )
    retention_days: int = setting(
        0,
        "SALIENCE_RETENTION_DAYS",
        "salience maintain: softly forget current observations older than this many days that "
        "no insight was derived from (0 = off; nothing is ever deleted).",
        parse_int,
    )
    rae_dedup_threshold: float = setting(
        0.95,
        "SALIENCE_RAE_DEDUP_THRESHOLD",
        "rae profile: a new memory this similar (cosine) to a current one is a duplicate.",
        parse_float,
    )
    embedder: str = setting(
        "minilm",
        "SALIENCE_EMBEDDER",
        "Vectors for recall: minilm (bundled, offline), none (full-text only), openai, ollama.",
        parse_text,
    )
    vector_index: str = setting(
        "auto",
        "SALIENCE_VECTOR_INDEX",
        "Vector search: exact (NumPy, every vector), usearch (approximate HNSW beside a SQLite "
        "file; pip install 'salience[ann]'), pgvector (PostgreSQL's HNSW index once the store "
        "holds SALIENCE_PGVECTOR_FROM vectors, exact below), or auto (pgvector on PostgreSQL, "
        "exact on SQLite).",
        parse_text,
    )
    pgvector_from: int = setting(
        100_000,
        "SALIENCE_PGVECTOR_FROM",
        "With pgvector: from this many vectors, recall asks the HNSW index instead of scoring "
        "every vector exactly.",
        parse_int,
    )
    pgvector_warm_mb: int = setting(
        1024,
        "SALIENCE_PGVECTOR_WARM_MB",
        "A server searching PostgreSQL's HNSW index loads the vectors into memory meanwhile, "
        "then searches them exactly, if they take at most this many MB (~2 KB each); 0: never.",
        parse_int,
    )
    embedder_url: str = setting(
        "",
        "SALIENCE_EMBEDDER_URL",
        "Base URL of the openai (e.g. http://host/v1) or ollama (http://host:11434) embedder.",
        parse_text,
    )
    embedder_model: str = setting(
        "", "SALIENCE_EMBEDDER_MODEL", "Model name for the openai or ollama embedder.", parse_text
    )
    embedder_api_key: str = secret(
        "SALIENCE_EMBEDDER_API_KEY",
        "API key for the openai embedder (sent as a bearer token, never shown).",
    )
    llm: str = setting(
        "none",
        "SALIENCE_LLM",
        "Optional LLM for consolidation summaries of groups of 5+: none (extractive), openai "
        "(an OpenAI-compatible chat API) or ollama.",
        parse_text,
    )
    llm_url: str = setting(
        "",
        "SALIENCE_LLM_URL",
        "Base URL of the LLM: http://host/v1 (openai; default https://api.openai.com/v1) or "
        "http://host:11434 (ollama; the default).",
        parse_text,
    )
    llm_model: str = setting("", "SALIENCE_LLM_MODEL", "Model name for the LLM.", parse_text)
    llm_api_key: str = secret(
        "SALIENCE_LLM_API_KEY", "API key for the openai LLM (sent as a bearer token, never shown)."
    )
    max_request_bytes: int = setting(
        10 * 1024 * 1024,
        "SALIENCE_MAX_REQUEST_BYTES",
        "salience serve: the largest request body accepted, in bytes (larger ones answer 413).",
        parse_int,
    )
    job_seconds: int = setting(
        600,
        "SALIENCE_JOB_SECONDS",
        "The longest a job (an import, a consolidation, a reindex) may run, in seconds; past "
        "it, the job fails at its next check, naming this limit.",
        parse_int,
    )
    job_rows: int = setting(
        1_000_000,
        "SALIENCE_JOB_ROWS",
        "The most records an import may read from another system's store or export.",
        parse_int,
    )
    job_read_mb: int = setting(
        1024,
        "SALIENCE_JOB_READ_MB",
        "The most MB an import may read from its source (files and values); no one value of a "
        "source may pass 16 MB or this, whichever is less.",
        parse_int,
    )
    job_unpacked_mb: int = setting(
        512, "SALIENCE_JOB_UNPACKED_MB", "The most MB an uploaded zip may unpack to.", parse_int
    )
    job_unpack_ratio: int = setting(
        50,
        "SALIENCE_JOB_UNPACK_RATIO",
        "How many times its compressed size a zip member may unpack to (beyond a first MB).",
        parse_int,
    )
    job_memory_mb: int = setting(
        1536,
        "SALIENCE_JOB_MEMORY_MB",
        "A job fails at its next check once the process holds more than this many MB.",
        parse_int,
    )
    jobs_per_tenant: int = setting(
        2, "SALIENCE_JOBS_PER_TENANT", "How many jobs of one user run at once.", parse_int
    )
    jobs_running: int = setting(
        4, "SALIENCE_JOBS_RUNNING", "How many jobs run at once in a process, in all.", parse_int
    )
    jobs_queued: int = setting(
        8,
        "SALIENCE_JOBS_QUEUED",
        "How many more jobs of one user wait their turn; past them a new job is refused "
        "(HTTP 429).",
        parse_int,
    )
    otel: str = setting(
        "off",
        "SALIENCE_OTEL",
        "Traces (OpenTelemetry, the otel extra): off; on (to the tracer provider the "
        "application set up); console (printed); otlp (sent to OTEL_EXPORTER_OTLP_ENDPOINT). "
        "Spans hold counts, timings, profile and tenant, never text.",
        parse_text,
    )
    llm_timeout_s: float = setting(
        30.0,
        "SALIENCE_LLM_TIMEOUT_S",
        "Seconds to wait for an LLM summary before falling back to the extractive one.",
        parse_float,
    )

    def __post_init__(self) -> None:
        if not isinstance(self.home, Path):  # a str from Python callers is welcome too
            object.__setattr__(self, "home", Path(self.home).expanduser())
        check(self)

    @property
    def db_path(self) -> Path:
        """The default database file, ``home / salience.db``."""
        return self.home / DB_FILENAME

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """Defaults, then ``$SALIENCE_HOME/config.toml``, then the environment."""
        env = os.environ if environ is None else environ
        home = default_home(env)
        known = {f.name: f for f in fields(cls) if f.name != "home"}
        values: dict[str, Any] = {"home": home, **read_file(home / CONFIG_FILENAME, known)}
        for f in fields(cls):
            name = f.metadata["env"]
            if f.name != "home" and name in env:
                values[f.name] = f.metadata["parse"](env[name], name)
        return cls(**values)

    @classmethod
    def for_home(cls, home: str | Path, environ: Mapping[str, str] | None = None) -> Config:
        """:meth:`from_env` with another data directory (the CLI's ``--home``)."""
        env = dict(os.environ if environ is None else environ)
        env["SALIENCE_HOME"] = str(Path(home).expanduser())
        return cls.from_env(env)

    def changed(self, raw: Mapping[str, str], allowed: Sequence[str]) -> dict[str, Any]:
        """Settings given as text, as the environment gives them (``rae_weights`` as
        ``semantic=0.8,recency=0.2``), parsed and checked as this configuration's would be:
        field name to value. Only the ``allowed`` field names are accepted."""
        known = {f.name: f for f in fields(self)}
        values: dict[str, Any] = {}
        for name, text in raw.items():
            if name not in allowed:
                raise ConfigError(f"{name!r} cannot be changed here; known: {', '.join(allowed)}")
            values[name] = known[name].metadata["parse"](text, name)
        replace(self, **values)  # (checks ranges and choices)
        return values


def describe() -> list[tuple[str, str, str]]:
    """(field, environment variable, help) for every setting, in declaration order."""
    return [(f.name, f.metadata["env"], f.metadata["help"]) for f in fields(Config)]
