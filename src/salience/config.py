"""Configuration: one frozen :class:`Config`, read from the environment once.

Each field documents itself (``help``) and names the environment variable it comes from
(``env``); ``salience config`` and the docs are generated from this metadata.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from salience.errors import ConfigError

DB_FILENAME = "salience.db"


def default_home(environ: Mapping[str, str]) -> Path:
    """``$SALIENCE_HOME``, else ``$XDG_DATA_HOME/salience``, else ``~/.local/share/salience``."""
    if environ.get("SALIENCE_HOME"):
        return Path(environ["SALIENCE_HOME"]).expanduser()
    if environ.get("XDG_DATA_HOME"):
        return Path(environ["XDG_DATA_HOME"]).expanduser() / "salience"
    return Path.home() / ".local" / "share" / "salience"


@dataclass(frozen=True)
class Config:
    """Every setting salience reads; build it with :meth:`from_env` or directly."""

    home: Path = field(
        default_factory=lambda: default_home(os.environ),
        metadata={
            "env": "SALIENCE_HOME",
            "help": "Data directory holding salience.db "
            "(default $XDG_DATA_HOME/salience or ~/.local/share/salience).",
        },
    )
    max_content_bytes: int = field(
        default=65536,
        metadata={
            "env": "SALIENCE_MAX_CONTENT_BYTES",
            "help": "Largest memory content accepted, in UTF-8 bytes.",
        },
    )
    busy_timeout_ms: int = field(
        default=10000,
        metadata={
            "env": "SALIENCE_BUSY_TIMEOUT_MS",
            "help": "How long a write waits for another process's lock before giving up.",
        },
    )

    def __post_init__(self) -> None:
        if self.max_content_bytes < 1:
            raise ConfigError("max_content_bytes must be a positive number of bytes")
        if self.busy_timeout_ms < 0:
            raise ConfigError("busy_timeout_ms must not be negative")

    @property
    def db_path(self) -> Path:
        """The default database file, ``home / salience.db``."""
        return self.home / DB_FILENAME

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """Read every field from its environment variable; unset ones keep their defaults."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {"home": default_home(env)}
        for f in fields(cls):
            name = f.metadata["env"]
            if f.name == "home" or name not in env:
                continue
            raw = env[name]
            try:
                values[f.name] = int(raw)
            except ValueError:
                raise ConfigError(f"{name}={raw!r} is not a whole number") from None
        return cls(**values)  # type: ignore[arg-type]

    def with_home(self, home: str | Path) -> Config:
        """A copy with another data directory (the CLI's ``--home``)."""
        return replace(self, home=Path(home).expanduser())


def describe() -> list[tuple[str, str, str]]:
    """(field, environment variable, help) for every setting, in declaration order."""
    return [(f.name, f.metadata["env"], f.metadata["help"]) for f in fields(Config)]
