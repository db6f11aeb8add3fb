"""How a setting's text becomes its value: numbers, switches, weights and text, each with an
error that names the setting, and where the data directory is when none is named."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import Field, field
from pathlib import Path
from typing import Any

from salience.errors import ConfigError

RAE_SIGNALS = ("semantic", "recency", "importance", "usage")
RAE_WEIGHT_DEFAULTS = (("semantic", 0.6), ("recency", 0.1), ("importance", 0.2), ("usage", 0.1))


def default_home(environ: Mapping[str, str]) -> Path:
    """``$SALIENCE_HOME``, else ``$XDG_DATA_HOME/salience``, else ``~/.local/share/salience``."""
    if environ.get("SALIENCE_HOME"):
        return Path(environ["SALIENCE_HOME"]).expanduser()
    if environ.get("XDG_DATA_HOME"):
        return Path(environ["XDG_DATA_HOME"]).expanduser() / "salience"
    return Path.home() / ".local" / "share" / "salience"


def parse_int(raw: object, name: str) -> int:
    if isinstance(raw, bool):
        raise ConfigError(f"{name}={raw!r} is not a whole number")
    try:
        return int(str(raw)) if not isinstance(raw, int) else raw
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a whole number") from None


def parse_float(raw: object, name: str) -> float:
    try:
        value = float(str(raw)) if not isinstance(raw, int | float) else float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if math.isnan(value) or math.isinf(value):
        raise ConfigError(f"{name}={raw!r} is not a finite number")
    return value


def parse_bool(raw: object, name: str) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("", "0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name}={raw!r} is not true or false (1/true/yes/on, 0/false/no/off)")


def parse_weights(raw: object, name: str) -> tuple[tuple[str, float], ...]:
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
        weights[key] = parse_float(value, f"{name}.{key}")
    return tuple((key, weights[key]) for key in RAE_SIGNALS)


def parse_text(raw: object, name: str) -> str:
    return str(raw).strip()


def setting(default: Any, env: str, help_text: str, parse: Callable[[object, str], Any]) -> Any:
    return field(default=default, metadata={"env": env, "help": help_text, "parse": parse})


def secret(env: str, help_text: str) -> Any:
    """A text setting kept out of ``repr`` (API keys)."""
    meta = {"env": env, "help": help_text, "parse": parse_text}
    return field(default="", repr=False, metadata=meta)


def read_file(path: Path, known: Mapping[str, Field[Any]]) -> dict[str, Any]:
    """The settings of a TOML file, parsed by the ``known`` fields (by name); {} if there is
    no file. An unknown setting or a file that is not TOML is a :class:`ConfigError`."""
    if not path.is_file():
        return {}
    import tomllib  # here, not at the top: most homes have no config file (~15 ms saved)

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(unknown)}")
    return {
        key: known[key].metadata["parse"](value, f"{path.name}:{key}")
        for key, value in data.items()
    }
