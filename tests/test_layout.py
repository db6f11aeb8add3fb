"""The package's layout: imports point down the flow, modules stay small.

Faces (the CLI, and the public API in ``salience/__init__``) call the engine; the engine calls
the stages a memory goes through; stages use the stores, the embedders and the vocabulary.
Among the stages the order below is the order of their dependencies. Every import counts,
including those inside functions and under ``TYPE_CHECKING``: a dependency is a dependency.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

SRC = Path(__file__).parent.parent / "src" / "salience"

# Lowest first. A module may import its own room and anything listed before it.
ROOMS: tuple[tuple[str, ...], ...] = (
    (
        "budget",
        "clock",
        "config",
        "errors",
        "ids",
        "lazy",
        "models",
        "net",
        "scratch",
        "scores",
        "text",
        "text_dates",
    ),
    ("embeddings", "stores"),
    ("write",),
    ("briefing",),
    ("profiles",),
    ("search",),
    ("sharing",),
    ("lifecycle",),
    ("engine",),
    ("wire",),
    ("cli", "server", "mcp_server", "client", "__init__", "__main__"),
)
FACES = ("mcp_server", "client", "server", "cli")
"""The faces, lowest first: a face may use one listed before it (``serve`` mounts MCP, the
CLI starts the server), never one after it."""
VOCABULARY = ROOMS[0]
MAX_LINES = 400
MAX_TOP_LEVEL = 12


def _rank(room: str) -> int:
    for rank, rooms in enumerate(ROOMS):
        if room in rooms:
            return rank
    raise AssertionError(f"salience.{room} is in no room of tests/test_layout.py: place it")


def _room(module: str) -> str:
    """``salience.search.vectors`` -> ``search``; ``salience`` itself -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(path: Path, module: str) -> set[str]:
    """Every ``salience`` name ``path`` imports: ``from a import b`` gives ``a.b``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return {n for n in names if n == "salience" or n.startswith("salience.")}


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module a name lives in: itself if it is a module, else the nearest package above."""
    while name not in modules and "." in name:
        name = name.rpartition(".")[0]
    return name if name in modules else None


def edges() -> set[tuple[str, str]]:
    """(importer, imported) pairs between modules of ``src/salience``."""
    modules = _modules()
    pairs = set()
    for module, path in modules.items():
        for name in imported(path, module):
            target = _resolve(name, modules)
            if target is not None and target != module:
                pairs.add((module, target))
    return pairs


def test_every_import_points_down_the_flow() -> None:
    upward = sorted(f"{a} imports {b}" for a, b in edges() if _rank(_room(a)) < _rank(_room(b)))
    assert not upward, "imports against the flow:\n" + "\n".join(upward)


def test_stages_and_lower_rooms_never_import_the_engine_or_a_face() -> None:
    engine = _rank("engine")
    wrong = sorted(
        f"{a} imports {b}" for a, b in edges() if _rank(_room(a)) < engine <= _rank(_room(b))
    )
    assert not wrong, "\n".join(wrong)


def test_faces_call_only_the_engine_the_wire_and_the_vocabulary() -> None:
    allowed = {*VOCABULARY, "engine", "wire"}
    wrong = sorted(
        f"{a} imports {b}"
        for a, b in edges()
        if _room(a) in FACES
        and b != "salience"  # (the package itself: its __version__)
        and _room(b) not in allowed
        and not (_room(b) in FACES and FACES.index(_room(b)) <= FACES.index(_room(a)))
    )
    assert not wrong, "a face past the engine:\n" + "\n".join(wrong)


def test_vocabulary_imports_only_vocabulary() -> None:
    wrong = sorted(
        f"{a} imports {b}"
        for a, b in edges()
        if _room(a) in VOCABULARY and _room(b) not in VOCABULARY
    )
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_no_module_is_over_400_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(SRC)} has {lines} lines: split it at a seam"


def test_the_top_level_reads_like_the_flow() -> None:
    top = sorted(p.name for p in SRC.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL, f"{len(top)} modules at the top level: {top}"
    rooms = {p.name for p in SRC.iterdir() if (p / "__init__.py").exists()}
    assert rooms <= {r for rank in ROOMS for r in rank}, "a subpackage is in no room"


def test_the_import_check_sees_an_upward_import(tmp_path: Path) -> None:
    # The check itself: a stage module that imports the engine is found.
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from salience.engine.memory import Memory\nif True:\n    from ..engine import core\n",
        encoding="utf-8",
    )
    found = {_resolve(name, _modules()) for name in imported(probe, "salience.search.probe")}
    assert found == {"salience.engine.memory", "salience.engine.core"}
    assert _rank(_room("salience.search.probe")) < _rank(_room("salience.engine.core"))


ROOT_ENTRIES = {
    ".ci",
    ".claude-plugin",  # (the repository as Claude Code's plugin marketplace)
    ".gitignore",
    "CHANGELOG.md",
    "Makefile",
    "README.md",
    "bench",
    "docs",
    "plugins",  # (the Claude Code plugin: the MCP server and the session hooks)
    "pyproject.toml",
    "scripts",
    "src",
    "tests",
}


def test_the_checkout_holds_only_the_project() -> None:
    # A test that writes into the working directory once left a store and an export at the
    # top of the repository, and they were committed; nothing but the project may be there.
    root = SRC.parent.parent
    listed = subprocess.run(
        ["git", "ls-files"], cwd=root, capture_output=True, text=True, check=False
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    top = {line.split("/", 1)[0] for line in listed.stdout.splitlines()}
    assert top <= ROOT_ENTRIES, sorted(top - ROOT_ENTRIES)


def test_no_two_engine_mixins_define_the_same_name() -> None:
    """``Memory`` is assembled from mixins: a name two of them define (``_plan``, say) would
    silently run the wrong one, whichever comes first in the method order."""
    from salience.engine.core import EngineCore
    from salience.engine.memory import Memory

    mixins = [c for c in Memory.__mro__ if issubclass(c, EngineCore) and c is not EngineCore]
    owners: dict[str, list[str]] = {}
    for mixin in mixins:
        for name in vars(mixin):
            if not name.startswith("__"):
                owners.setdefault(name, []).append(mixin.__name__)
    assert {name: who for name, who in owners.items() if len(who) > 1} == {}
