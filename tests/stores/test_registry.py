"""The backend registry: URL schemes to stores, and the only place that names a backend."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from salience.errors import ConfigError
from salience.stores import registry
from salience.stores.registry import (
    BACKENDS,
    DEFAULT,
    Backend,
    FileCopy,
    backend_of,
    is_local,
    local_file,
    open_file,
    open_store,
)

SRC = Path(__file__).parent.parent.parent / "src" / "salience"
FOREIGN = ("sharing/importers/",)
"""Readers of other systems' stores (engram's SQLite file, RAE's PostgreSQL database): they
name the formats they read, not a salience backend."""


def test_a_location_names_its_backend_by_scheme() -> None:
    assert backend_of(None) is DEFAULT
    assert backend_of("/tmp/x/salience.db").name == "sqlite"
    assert backend_of("sqlite:///tmp/x.db").name == "sqlite"
    assert backend_of("postgresql://app@db/memory").name == "postgresql"
    assert backend_of("POSTGRES://app@db/memory").name == "postgresql"
    assert not is_local("postgresql://app@db/memory")
    assert is_local("/tmp/x.db")


def test_an_unknown_scheme_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"unsupported store URL scheme 'mysql'.*sqlite"):
        backend_of("mysql://db/memory")


def test_a_local_store_is_a_file_a_directory_names_its_database(tmp_path: Path) -> None:
    default = tmp_path / "home" / "salience.db"
    assert local_file(None, default) == default
    assert local_file("", default) == default
    assert local_file(tmp_path, default) == tmp_path / "salience.db"
    assert local_file(f"sqlite://{tmp_path}/a.db", default) == tmp_path / "a.db"
    assert local_file("postgresql://app@db/memory", default) is None


def test_a_store_is_opened_by_its_backend(tmp_path: Path) -> None:
    store = open_store(tmp_path, default=tmp_path / "no.db", busy_timeout_ms=1000)
    try:
        assert store.location == str(tmp_path / "salience.db")
        assert isinstance(store, FileCopy)  # (a file: an evaluation copies it whole)
    finally:
        store.close()
    layer = open_file(tmp_path / "salience.db", busy_timeout_ms=1000, read_only=True)
    layer.close()


def test_a_backend_whose_extra_is_missing_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    absent = Backend(
        "nowhere",
        "Nowhere",
        ("nowhere",),
        "salience.stores.sqlite",
        local=False,
        extra="nowhere",
        needs=("salience_no_such_module",),
    )
    monkeypatch.setattr(registry, "BACKENDS", (*BACKENDS, absent))
    with pytest.raises(ConfigError, match=r"pip install 'salience\[nowhere\]'"):
        open_store("nowhere://x", default=Path("unused"), busy_timeout_ms=1000)


def _store_class(name: str, words: set[str]) -> bool:
    return name.endswith("Store") and name.lower().removesuffix("store") in words


def _named(path: Path) -> list[str]:
    """What in ``path`` names a backend: an import of its package, its store class, or its
    name or scheme as a string (docstrings aside)."""
    words = {s for b in BACKENDS for s in (b.name, *b.schemes)}
    packages = tuple(b.module for b in BACKENDS)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom | ast.Import):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names]
            found += [f"imports {n}" for n in names if n.startswith(packages)]
            found += [f"names {a.name}" for a in node.names if _store_class(a.name, words)]
        elif isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if _store_class(name, words):
                found.append(f"names {name}")
        elif isinstance(node, ast.Constant) and id(node) not in docstrings:
            value = node.value
            text = value.decode("latin-1") if isinstance(value, bytes) else value
            if isinstance(text, str) and text.lower().removesuffix("://") in words:
                found.append(f"says {text!r}")
    return found


def test_no_module_outside_stores_names_a_backend() -> None:
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        where = path.relative_to(SRC).as_posix()
        if where.startswith(("stores/", *FOREIGN)):
            continue
        wrong += [f"{where} {what}" for what in _named(path)]
    assert not wrong, "a backend named outside stores/registry.py:\n" + "\n".join(wrong)


def test_the_check_sees_a_backend_named_elsewhere(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        '"""Docs may say sqlite."""\n'
        "from salience.stores.sqlite import SQLiteStore\n"
        'KINDS = ("sqlite", "postgresql")\n'
        "def f(x):\n    return x.startswith('postgres://')\n",
        encoding="utf-8",
    )
    assert sorted(_named(probe)) == sorted(
        [
            "imports salience.stores.sqlite",
            "names SQLiteStore",
            "says 'sqlite'",
            "says 'postgresql'",
            "says 'postgres://'",
        ]
    )
