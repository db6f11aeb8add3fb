"""Configuration: one frozen :class:`Config`, read once from a file and the environment.

Precedence, lowest first: defaults, ``$SALIENCE_HOME/config.toml`` (keys are the field names),
environment variables. Each field documents itself (``help``) and names its variable
(``env``); docs/configuration.md's settings table is generated from this metadata
(``scripts/gen_docs.py``; a test fails when it is stale).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from salience.errors import ConfigError

DB_FILENAME = "salience.db"
CONFIG_FILENAME = "config.toml"
RAE_SIGNALS = ("semantic", "recency", "importance", "usage")
RECALL_SETTINGS = (
    "recall_prior",
    "recall_learned",
    "rae_weights",
    "rae_half_life_hours",
    "aide_scoring_disabled",
    "aide_decay_disabled",
)
"""The settings a recall's scores read (an evaluation may compare with other values)."""
EMBEDDERS = ("minilm", "none", "openai", "ollama")
EMBEDDER_SETTINGS = ("embedder_model", "embedder_url")
"""What names another embedder, beside ``embedder`` itself."""
SIGNED: tuple[tuple[str, bool], ...] = (("busy_timeout_ms", False), ("pgvector_from", False))
SIGNED += (("pgvector_warm_mb", False), ("rae_half_life_hours", True), ("llm_timeout_s", True))
RAE_WEIGHT_DEFAULTS = (("semantic", 0.6), ("recency", 0.1), ("importance", 0.2), ("usage", 0.1))


def default_home(environ: Mapping[str, str]) -> Path:
    """``$SALIENCE_HOME``, else ``$XDG_DATA_HOME/salience``, else ``~/.local/share/salience``."""
    if environ.get("SALIENCE_HOME"):
        return Path(environ["SALIENCE_HOME"]).expanduser()
    if environ.get("XDG_DATA_HOME"):
        return Path(environ["XDG_DATA_HOME"]).expanduser() / "salience"
    return Path.home() / ".local" / "share" / "salience"


def _int(raw: object, name: str) -> int:
    if isinstance(raw, bool):
        raise ConfigError(f"{name}={raw!r} is not a whole number")
    try:
        return int(str(raw)) if not isinstance(raw, int) else raw
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a whole number") from None


def _float(raw: object, name: str) -> float:
    try:
        value = float(str(raw)) if not isinstance(raw, int | float) else float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if math.isnan(value) or math.isinf(value):
        raise ConfigError(f"{name}={raw!r} is not a finite number")
    return value


def _bool(raw: object, name: str) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("", "0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name}={raw!r} is not true or false (1/true/yes/on, 0/false/no/off)")


def _weights(raw: object, name: str) -> tuple[tuple[str, float], ...]:
    """``semantic=0.6,recency=0.1,...`` (environment) or a TOML table."""
    if isinstance(raw, Mapping):
        pairs = [(str(k), v) for k, v in raw.items()]
    else:
        pairs = []
        for item in str(raw).split(","):
            key, sep, value = item.partition("=")
            if not sep:
                raise ConfigError(f"{name}: expected signal=weight pairs, got {item.strip()!r}")
            pairs.append((key.strip(), value.strip()))
    weights = dict(RAE_WEIGHT_DEFAULTS)
    for key, value in pairs:
        if key not in weights:
            raise ConfigError(f"{name}: unknown signal {key!r}; known: {', '.join(RAE_SIGNALS)}")
        weights[key] = _float(value, f"{name}.{key}")
    return tuple((key, weights[key]) for key in RAE_SIGNALS)


def _text(raw: object, name: str) -> str:
    return str(raw).strip()


def _setting(default: Any, env: str, help_text: str, parse: Callable[[object, str], Any]) -> Any:
    return field(default=default, metadata={"env": env, "help": help_text, "parse": parse})


def _secret(env: str, help_text: str) -> Any:
    """A text setting kept out of ``repr`` (API keys)."""
    return field(default="", repr=False, metadata={"env": env, "help": help_text, "parse": _text})


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
            "parse": _text,
        },
    )
    profile: str = _setting(
        "salience", "SALIENCE_PROFILE", "Default scoring profile for every command.", _text
    )
    user: str = _setting(
        "default",
        "SALIENCE_USER",
        "The user every verb acts for when none is named; other users' memories are "
        "invisible to it.",
        _text,
    )
    max_content_bytes: int = _setting(
        65536, "SALIENCE_MAX_CONTENT_BYTES", "Largest memory content accepted, in bytes.", _int
    )
    busy_timeout_ms: int = _setting(
        10000,
        "SALIENCE_BUSY_TIMEOUT_MS",
        "How long a write waits for another process's lock before giving up.",
        _int,
    )
    signal_gate: bool = _setting(
        True,
        "SALIENCE_SIGNAL_GATE",
        "Refuse low-value writes (too short, self-talk, tool output, generic). The secret "
        "scanner has no such switch.",
        _bool,
    )
    record: bool = _setting(
        True,
        "SALIENCE_RECORD",
        "Keep a record of recalls and briefings, and the feedback that followed, in the store "
        "(salience eval and briefing log read it; 0 turns it off).",
        _bool,
    )
    record_days: int = _setting(
        90,
        "SALIENCE_RECORD_DAYS",
        "How many days the record of recalls and briefings is kept.",
        _int,
    )
    briefing_budget: int = _setting(
        1500,
        "SALIENCE_BRIEFING_BUDGET",
        "Token budget of a salience-profile briefing (tokens = ceil(chars / 4)).",
        _int,
    )
    aide_scoring_disabled: bool = _setting(
        False,
        "AIDE_MEMORY_SCORING_DISABLED",
        "aide profile: no scoring, chronological ULID order (the document's variable).",
        _bool,
    )
    aide_decay_disabled: bool = _setting(
        False,
        "AIDE_MEMORY_DECAY_DISABLED",
        "aide profile: recency is always 1.0 (the document's variable).",
        _bool,
    )
    rae_weights: tuple[tuple[str, float], ...] = _setting(
        RAE_WEIGHT_DEFAULTS,
        "SALIENCE_RAE_WEIGHTS",
        "rae profile weights, e.g. semantic=0.6,recency=0.1,importance=0.2,usage=0.1.",
        _weights,
    )
    rae_half_life_hours: float = _setting(
        24.0, "SALIENCE_RAE_HALF_LIFE_HOURS", "rae profile: recency half-life in hours.", _float
    )
    recall_prior: float = _setting(
        0.15,
        "SALIENCE_RECALL_PRIOR",
        "salience profile: weight of the context score (importance, recency, feedback...) in "
        "recall; the rest is query relevance. 0 ranks by relevance alone.",
        _float,
    )
    recall_learned: bool = _setting(
        False,
        "SALIENCE_RECALL_LEARNED",
        "salience profile: re-rank recall's best 50 candidates with the learned fusion (fitted "
        "on LoCoMo and LongMemEval; docs/scoring.md has its measurements). Off by default.",
        _bool,
    )
    retention_days: int = _setting(
        0,
        "SALIENCE_RETENTION_DAYS",
        "salience maintain: softly forget current observations older than this many days that "
        "no insight was derived from (0 = off; nothing is ever deleted).",
        _int,
    )
    rae_dedup_threshold: float = _setting(
        0.95,
        "SALIENCE_RAE_DEDUP_THRESHOLD",
        "rae profile: a new memory this similar (cosine) to a current one is a duplicate.",
        _float,
    )
    embedder: str = _setting(
        "minilm",
        "SALIENCE_EMBEDDER",
        "Vectors for recall: minilm (bundled, offline), none (full-text only), openai, ollama.",
        _text,
    )
    vector_index: str = _setting(
        "auto",
        "SALIENCE_VECTOR_INDEX",
        "Vector search: exact (NumPy, every vector), usearch (approximate HNSW beside a SQLite "
        "file; pip install 'salience[ann]'), pgvector (PostgreSQL's HNSW index once the store "
        "holds SALIENCE_PGVECTOR_FROM vectors, exact below), or auto (pgvector on PostgreSQL, "
        "exact on SQLite).",
        _text,
    )
    pgvector_from: int = _setting(
        100_000,
        "SALIENCE_PGVECTOR_FROM",
        "With pgvector: from this many vectors, recall asks the HNSW index instead of scoring "
        "every vector exactly.",
        _int,
    )
    pgvector_warm_mb: int = _setting(
        1024,
        "SALIENCE_PGVECTOR_WARM_MB",
        "A server searching PostgreSQL's HNSW index loads the vectors into memory meanwhile, "
        "then searches them exactly, if they take at most this many MB (~2 KB each); 0: never.",
        _int,
    )
    embedder_url: str = _setting(
        "",
        "SALIENCE_EMBEDDER_URL",
        "Base URL of the openai (e.g. http://host/v1) or ollama (http://host:11434) embedder.",
        _text,
    )
    embedder_model: str = _setting(
        "", "SALIENCE_EMBEDDER_MODEL", "Model name for the openai or ollama embedder.", _text
    )
    embedder_api_key: str = _secret(
        "SALIENCE_EMBEDDER_API_KEY",
        "API key for the openai embedder (sent as a bearer token, never shown).",
    )
    llm: str = _setting(
        "none",
        "SALIENCE_LLM",
        "Optional LLM for consolidation summaries of groups of 5+: none (extractive), openai "
        "(an OpenAI-compatible chat API) or ollama.",
        _text,
    )
    llm_url: str = _setting(
        "",
        "SALIENCE_LLM_URL",
        "Base URL of the LLM: http://host/v1 (openai; default https://api.openai.com/v1) or "
        "http://host:11434 (ollama; the default).",
        _text,
    )
    llm_model: str = _setting("", "SALIENCE_LLM_MODEL", "Model name for the LLM.", _text)
    llm_api_key: str = _secret(
        "SALIENCE_LLM_API_KEY", "API key for the openai LLM (sent as a bearer token, never shown)."
    )
    max_request_bytes: int = _setting(
        10 * 1024 * 1024,
        "SALIENCE_MAX_REQUEST_BYTES",
        "salience serve: the largest request body accepted, in bytes (larger ones answer 413).",
        _int,
    )
    llm_timeout_s: float = _setting(
        30.0,
        "SALIENCE_LLM_TIMEOUT_S",
        "Seconds to wait for an LLM summary before falling back to the extractive one.",
        _float,
    )

    def __post_init__(self) -> None:
        if not isinstance(self.home, Path):  # a str from Python callers is welcome too
            object.__setattr__(self, "home", Path(self.home).expanduser())
        self._check_ranges()
        self._check_choices()

    def _check_ranges(self) -> None:
        if not self.user or len(self.user) > 512 or not self.user.isprintable():
            raise ConfigError("user must be a printable name of 1 to 512 characters")
        if self.max_content_bytes < 1:
            raise ConfigError("max_content_bytes must be a positive number of bytes")
        for name, positive in SIGNED:
            value = getattr(self, name)
            if value < 0 or (positive and value == 0):
                raise ConfigError(f"{name} must {'be positive' if positive else 'not be negative'}")
        if self.briefing_budget < 1:
            raise ConfigError("briefing_budget must be at least 1 token")
        if any(weight < 0 for _, weight in self.rae_weights):
            raise ConfigError("rae_weights must not be negative")
        if self.record_days < 1:
            raise ConfigError("record_days must be at least 1 (SALIENCE_RECORD=0 turns it off)")
        if self.retention_days < 0:
            raise ConfigError("retention_days must not be negative (0 turns retention off)")
        if not 0 <= self.recall_prior <= 1:
            raise ConfigError("recall_prior must be in [0, 1]")
        if not 0 < self.rae_dedup_threshold <= 1:
            raise ConfigError("rae_dedup_threshold must be in (0, 1]")
        if self.max_request_bytes < 1024:
            raise ConfigError("max_request_bytes must be at least 1024")

    def _check_choices(self) -> None:
        if self.vector_index not in ("exact", "usearch", "pgvector", "auto"):
            raise ConfigError(
                f"unknown vector_index {self.vector_index!r}; known: auto, exact, usearch, pgvector"
            )
        if self.embedder not in EMBEDDERS:
            raise ConfigError(f"unknown embedder {self.embedder!r}; known: {', '.join(EMBEDDERS)}")
        if self.llm not in ("none", "openai", "ollama"):
            raise ConfigError(f"unknown llm {self.llm!r}; known: none, openai, ollama")

    @property
    def db_path(self) -> Path:
        """The default database file, ``home / salience.db``."""
        return self.home / DB_FILENAME

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """Defaults, then ``$SALIENCE_HOME/config.toml``, then the environment."""
        env = os.environ if environ is None else environ
        home = default_home(env)
        values: dict[str, Any] = {"home": home, **_read_file(home / CONFIG_FILENAME)}
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


def _read_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    import tomllib  # here, not at the top: most homes have no config file (~15 ms saved)

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    known = {f.name: f for f in fields(Config) if f.name != "home"}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(unknown)}")
    return {
        key: known[key].metadata["parse"](value, f"{path.name}:{key}")
        for key, value in data.items()
    }


def describe() -> list[tuple[str, str, str]]:
    """(field, environment variable, help) for every setting, in declaration order."""
    return [(f.name, f.metadata["env"], f.metadata["help"]) for f in fields(Config)]
