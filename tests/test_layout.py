"""The package's layout: imports point down the flow, modules stay small.

Faces (the CLI, and the public API in ``salience/__init__``) call the engine; the engine calls
the stages a memory goes through; stages use the stores, the embedders and the vocabulary.
Among the stages the order below is the order of their dependencies. Every import counts,
including those inside functions and under ``TYPE_CHECKING``: a dependency is a dependency.
"""

from __future__ import annotations

import ast
import importlib
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
        "telemetry",
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
    ("evaluation",),
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
    return _names(ast.parse(path.read_text(encoding="utf-8")), path, module)


def _names(tree: ast.AST, path: Path, module: str) -> set[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
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
    allowed = {*VOCABULARY, "engine", "evaluation", "wire"}
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


OVER_THE_CAP = "Over 400 lines:"
"""What a module's docstring says, with why, when splitting it would cut one idea in two."""


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_no_module_is_over_400_lines_unless_it_says_why(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    lines = len(text.splitlines())
    doc = ast.get_docstring(ast.parse(text)) or ""
    why = doc.partition(OVER_THE_CAP)[2].strip()
    assert lines <= MAX_LINES or why, (
        f"{path.relative_to(SRC)} has {lines} lines: split it at a seam, or say at its top "
        f"why it is one idea ({OVER_THE_CAP} ...)"
    )


def runtime_edges() -> dict[str, set[str]]:
    """Imports that run: at the top of a module or inside a function, not those under
    ``TYPE_CHECKING`` (a loop there is none at run time)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        probe = ast.Module(
            body=[n for n in ast.walk(tree) if id(n) not in typing_only and _is_import(n)],
            type_ignores=[],
        )
        names = _names(probe, path, module)
        graph[module] = {t for n in names if (t := _resolve(n, modules)) and t != module}
    return graph


def _is_import(node: ast.AST) -> bool:
    return isinstance(node, ast.Import | ast.ImportFrom)


def loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import loops in ``graph``: its strongly connected parts of two or more modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_runtime_import_loop() -> None:
    found = loops(runtime_edges())
    assert not found, "modules that import each other when they run:\n" + "\n".join(
        " <-> ".join(part) for part in found
    )


def test_the_loop_check_sees_a_loop() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert loops(graph) == [["a", "b", "c"]]


def test_faces_take_values_from_one_place() -> None:
    # Every public result type lives in salience.models; a face imports it from there.
    from salience import models

    values = {
        name: value
        for name, value in vars(models).items()
        if isinstance(value, type) and value.__module__.startswith("salience.models")
    }
    wrong = []
    for module, path in _modules().items():
        if _room(module) not in (*FACES, "wire", "__init__") or module == "salience":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module not in ("salience.models", None):
                source = node.module or ""
                wrong += [
                    f"{module} imports {a.name} from {source}"
                    for a in node.names
                    if a.name in values
                    and not source.startswith("salience.models")
                    and getattr(importlib.import_module(source), a.name, None) is values[a.name]
                ]
    assert not wrong, "values are imported from salience.models:\n" + "\n".join(wrong)


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
