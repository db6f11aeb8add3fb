"""The checks every :class:`~salience.config.Config` passes when it is made: ranges and the
settings that take one of a few words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from salience.errors import ConfigError

if TYPE_CHECKING:
    from salience.config import Config

EMBEDDERS = ("minilm", "none", "openai", "ollama")
CHOICES = {
    "vector_index": ("auto", "exact", "usearch", "pgvector"),
    "embedder": EMBEDDERS,
    "llm": ("none", "openai", "ollama"),
    "updates": ("link", "supersede", "off"),
    "otel": ("off", "on", "console", "otlp"),
}
"""The settings that take one of a few words, and those words."""
SIGNED: tuple[tuple[str, bool], ...] = (("busy_timeout_ms", False), ("pgvector_from", False))
SIGNED += (("pgvector_warm_mb", False), ("rae_half_life_hours", True), ("llm_timeout_s", True))
SIGNED += tuple((name, True) for name in ("job_seconds", "job_rows", "job_read_mb"))
SIGNED += tuple((name, True) for name in ("job_unpacked_mb", "job_unpack_ratio", "job_memory_mb"))
SIGNED += tuple((name, True) for name in ("jobs_per_tenant", "jobs_running", "jobs_queued"))


def check(config: Config) -> None:
    """Raise :class:`ConfigError` naming the first setting out of its range or choices."""
    _check_ranges(config)
    _check_choices(config)


def _check_ranges(self: Config) -> None:
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


def _check_choices(self: Config) -> None:
    for name, known in CHOICES.items():
        if getattr(self, name) not in known:
            value = getattr(self, name)
            raise ConfigError(f"unknown {name} {value!r}; known: {', '.join(known)}")
