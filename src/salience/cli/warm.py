"""``salience hook session-start`` answered by a running ``salience serve``, no engine loaded.

A local-mode ``salience serve`` (no API key: one user, loopback) writes ``serving.json`` in its
home: its address, process id, store, user and settings. A session-start hook for the default
store of the same home, with the same user and settings, asks that server for the briefing
over loopback (a short timeout) and prints what it would have computed: the same briefing,
recorded as the cold hook records it. Anything else (no server, another store, user or
settings, a server gone, an error, a timeout) answers None and the hook computes the briefing
in its own process.

The point is a hook that costs a Python start and one request, so the warm path imports
nothing but ``os`` and three of the C modules the standard library is built on: ``_socket``
(``socket`` loads ``enum``, ~17 ms), ``_json`` (``json`` loads ``re``, ~16 ms) and ``_blake2``
(``hashlib`` loads OpenSSL). Each has its public module as a fallback. The settings are
compared without loading :mod:`salience.config` either: the server publishes a digest of
what its settings were read from (the home, the config file's identity, the value of each
setting's variable), and a hook whose environment gives the same digest has the same
settings. A hook that cannot tell (an older server, another environment) loads the
configuration and compares the settings themselves, as before.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # (typing costs ~8 ms here; mypy reads this as True)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from typing import Any

    from salience.config import Config

    _Scan = Callable[[str, int], tuple[object, int]]

SERVING = "serving.json"
DB_FILENAME = "salience.db"  # (salience.config's, not imported: see the module doc)
CONFIG_FILENAME = "config.toml"
TIMEOUT_S = 2.0
OPTIONS = ("--project", "--home", "--profile", "--user")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
APART = ("home", "store_url", "user", "profile")
"""Settings a fingerprint leaves out: compared or sent apart (and the store's URL may hold a
password)."""


def announce(
    home: Path, url: str, store: str, config: Config, environ: Mapping[str, str] | None = None
) -> Path:
    """Say that this process serves ``store`` for ``config.user`` at ``url``, with these
    settings (owner only). ``environ``: the environment the settings were read from."""
    import json

    path = home / SERVING
    data: dict[str, object] = {
        "pid": os.getpid(),
        "url": url,
        "store": store,
        "user": config.user,
        "settings": fingerprint(config),
    }
    sources = _sources(config, os.environ if environ is None else environ)
    if sources is not None:
        data["sources"] = sources
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    return path


def fingerprint(config: Config) -> str:
    """The settings a briefing may read, hashed (not the home, store, user or profile, which
    are compared or sent apart; no secret): a hook run with other settings than the server's
    (another budget, say) computes its own briefing."""
    import hashlib
    from dataclasses import fields

    shown = sorted(
        (f.name, repr(getattr(config, f.name)))
        for f in fields(config)
        if f.repr and f.name not in APART
    )
    return hashlib.sha256(repr(shown).encode()).hexdigest()


def _sources(config: Config, environ: Mapping[str, str]) -> dict[str, object] | None:
    """What the settings are read from, digested, with the user and profile they give; None
    when ``config`` is not what they give (settings made in code, say)."""
    from dataclasses import fields

    from salience.config import Config

    names = sorted(
        f.metadata["env"] for f in fields(Config) if f.repr and f.name not in ("home", "store_url")
    )
    home = str(config.home)
    try:
        read = Config.for_home(home, environ)
    except Exception:  # (settings that no longer parse: no hook could share them)
        return None
    if fingerprint(read) != fingerprint(config) or read.user != config.user:
        return None
    digest = sources_digest(environ, home, names)
    return {"names": names, "digest": digest, "user": read.user, "profile": read.profile}


def sources_digest(environ: Mapping[str, str], home: str, names: list[str]) -> str:
    """A digest of the home, its config file's identity (device, inode, size, modification
    time: never its contents, which may hold a key) and the value of each variable named."""
    try:
        found = os.stat(os.path.join(home, CONFIG_FILENAME))
        identity: object = [found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns]
    except OSError:
        identity = None
    values = [[name, environ.get(name)] for name in names]
    text = _dumps([os.path.realpath(home), identity, values])
    return _digest(text.encode("utf-8", "surrogatepass"))


def withdraw(path: Path) -> None:
    """Take the announcement back (if it is still this process's)."""
    found = _read(str(path))
    if found is not None and found.get("pid") == os.getpid():
        path.unlink(missing_ok=True)


def home_path(environ: Mapping[str, str]) -> str:
    """:func:`salience.config.default_home`, from ``os`` alone (a test holds them equal)."""
    if environ.get("SALIENCE_HOME"):
        return os.path.expanduser(environ["SALIENCE_HOME"])
    if environ.get("XDG_DATA_HOME"):
        return os.path.join(os.path.expanduser(environ["XDG_DATA_HOME"]), "salience")
    return os.path.join(os.path.expanduser("~"), ".local", "share", "salience")


def warm_hook(args: list[str]) -> str | None:
    """The hook's output from a running server, or None (compute it here)."""
    given = options(args)
    if given is None or os.environ.get("SALIENCE_STORE_URL"):
        return None
    home = os.path.expanduser(given["--home"]) if "--home" in given else home_path(os.environ)
    found = _read(os.path.join(home, SERVING))
    if found is None or not _alive(found.get("pid")):
        return None
    settled = _settled(found, home, given)
    if settled is None:
        return None
    user, profile = settled
    if (
        given.get("--user", user) != found.get("user")
        or not isinstance(found.get("store"), str)
        or not _same_file(found["store"], os.path.join(home, DB_FILENAME))
    ):
        return None
    body: dict[str, object] = {
        "profile": given.get("--profile", profile),
        "project": given.get("--project"),
        "manifest": False,  # (the text alone: at 10k memories the manifest is a megabyte)
    }
    answer = _post(str(found.get("url", "")) + "/v1/briefing", body)
    if answer is None or not isinstance(answer.get("context"), str):
        return None
    return hook_output(answer["context"])


def _settled(found: dict[str, Any], home: str, given: dict[str, str]) -> tuple[str, str] | None:
    """This hook's user and profile, if its settings are the server's (else None)."""
    sources = found.get("sources")
    if isinstance(sources, dict) and isinstance(sources.get("names"), list):
        names = [n for n in sources["names"] if isinstance(n, str)]
        same = sources_digest(os.environ, home, names) == sources.get("digest")
        user, profile = sources.get("user"), sources.get("profile")
        if same and isinstance(user, str) and isinstance(profile, str):
            return user, profile
    from salience.config import Config  # (light: no engine)

    try:
        config = Config.for_home(given["--home"]) if "--home" in given else Config.from_env()
    except Exception:  # a bad setting: the cold hook says what is wrong
        return None
    if found.get("settings") != fingerprint(config):
        return None
    return config.user, config.profile


def hook_output(context: str) -> str:
    """What a SessionStart hook prints: the briefing as additional context (the text
    ``json.dumps(..., ensure_ascii=False)`` gives)."""
    return (
        '{"continue": true, "hookSpecificOutput": {"hookEventName": "SessionStart", '
        f'"additionalContext": {_quoted(context)}}}}}'
    )


def options(args: list[str]) -> dict[str, str] | None:
    """``--name value`` pairs of the hook's own options; None for anything else."""
    given: dict[str, str] = {}
    rest = list(args)
    while rest:
        name = rest.pop(0)
        value = None
        if "=" in name:
            name, value = name.split("=", 1)
        elif rest:
            value = rest.pop(0)
        if name not in OPTIONS or value is None or name in given:
            return None
        given[name] = value
    return given


def _read(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            data = _loads(handle.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _same_file(store: str, path: str) -> bool:
    try:
        return os.path.realpath(store) == os.path.realpath(path)
    except (OSError, ValueError):
        return False


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _post(url: str, body: dict[str, object]) -> dict[str, Any] | None:
    """POST ``body`` as JSON to a loopback ``http://host:port/path``; the JSON answered with
    200, or None (anything else, a timeout included)."""
    target = _loopback(url)
    if target is None:
        return None  # (loopback only: the announcement is trusted no further)
    family, host, port, path = target
    payload = _dumps(body).encode("utf-8")
    named = f"[{host}]" if ":" in host else host
    request = (
        f"POST {path} HTTP/1.1\r\nHost: {named}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    ).encode("ascii") + payload
    try:
        answer = _exchange(family, host, port, request)
        data = _loads(_body(answer).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _loopback(url: str) -> tuple[int, str, int, str] | None:
    """(address family, host, port, path) of an ``http://`` URL on loopback, else None."""
    import _socket

    if not url.startswith("http://"):
        return None
    netloc, slash, rest = url[len("http://") :].partition("/")
    host, colon, port = netloc.rpartition(":")
    host = host.strip("[]") if colon else netloc
    if host not in LOOPBACK or not (port.isdigit() if colon else True):
        return None
    family = _socket.AF_INET6 if host == "::1" else _socket.AF_INET
    return family, host, int(port) if colon else 80, slash + rest if slash else "/"


def _exchange(family: int, host: str, port: int, request: bytes) -> bytes:
    """Send ``request``, read the answer to its end (the server closes)."""
    import _socket

    sock = _socket.socket(family, _socket.SOCK_STREAM)
    try:
        sock.settimeout(TIMEOUT_S)
        sock.connect((host, port))
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    finally:
        sock.close()
    return b"".join(chunks)


def _body(answer: bytes) -> bytes:
    """The body of a whole HTTP/1.x answer with status 200 and its length given; ValueError
    for anything else (another status, a chunked or cut body)."""
    head, sep, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0].split(" ")
    if not sep or len(status) < 2 or not status[0].startswith("HTTP/1.") or status[1] != "200":
        raise ValueError("not a 200 answer")
    headers = dict(line.partition(":")[::2] for line in lines[1:])
    length = {k.strip().lower(): v.strip() for k, v in headers.items()}.get("content-length")
    if length is None or not length.isdigit() or int(length) != len(body):
        raise ValueError("the answer's length is not the length given")
    return body


_C_JSON: list[tuple[_Scan, Callable[[str], str]]] = []


def _c_json() -> tuple[_Scan, Callable[[str], str]] | None:
    """The C scanner and string encoder of :mod:`json`, made once."""
    if not _C_JSON:
        try:
            import _json
        except ImportError:  # pragma: no cover (CPython always has it)
            return None

        class Context:  # what json.JSONDecoder gives its C scanner
            strict = True
            object_hook = None
            object_pairs_hook = None
            parse_float = float
            parse_int = int
            parse_constant = {
                "-Infinity": float("-inf"),
                "Infinity": float("inf"),
                "NaN": float("nan"),
            }.__getitem__

        scan = _json.make_scanner(Context())  # type: ignore[arg-type]
        _C_JSON.append((scan, _json.encode_basestring))
    return _C_JSON[0]


def _loads(text: str) -> object:
    """``json.loads`` (ValueError on anything but one JSON document)."""
    found = _c_json()
    if found is None:  # pragma: no cover
        import json

        return json.loads(text)
    scan, _ = found
    try:
        value, end = scan(text, 0)
    except StopIteration:
        raise ValueError("not JSON") from None
    except Exception:  # (it reports errors through json.decoder, and without that module
        import json  # loaded, as a SystemError: let json say what is wrong)

        return json.loads(text)
    if text[end:].strip(" \t\n\r"):
        raise ValueError("more than one JSON document")
    return value


def _quoted(text: str) -> str:
    """A JSON string, as ``json.dumps(text, ensure_ascii=False)`` writes it."""
    found = _c_json()
    if found is None:  # pragma: no cover
        import json

        return json.dumps(text, ensure_ascii=False)
    return found[1](text)


def _dumps(value: object) -> str:
    """``json.dumps`` of strings, None, booleans, whole numbers and lists and dicts of them."""
    if isinstance(value, str):
        return _quoted(value)
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_dumps(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_quoted(k)}: {_dumps(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} here")


def _digest(data: bytes) -> str:
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover
        from hashlib import blake2b
    return blake2b(data).hexdigest()
