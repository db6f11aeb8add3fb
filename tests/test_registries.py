"""Every list of backends, profiles and tool sets is its registry's: a test fails on a list of
them written anywhere else (Python or the web UI), so adding one touches one place.

The registries: ``salience.stores.registry`` (backends), ``salience.profiles`` (profiles),
``salience.mcp_server.registry`` (tool sets). The importers' registry
(``salience.sharing.importers``) names other systems, some of which share a profile's name.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from salience.mcp_server.registry import TOOL_SETS
from salience.profiles import PROFILES
from salience.stores.registry import BACKENDS

SRC = Path(__file__).parent.parent / "src" / "salience"
REGISTRIES = {
    "stores/registry.py",
    "profiles/__init__.py",
    "mcp_server/registry.py",
    "sharing/importers/__init__.py",
}
NAMES = {
    *PROFILES,
    *TOOL_SETS,
    *(s for b in BACKENDS for s in (b.name, *b.schemes)),
}


def _lists(source: str) -> list[tuple[int, list[str]]]:
    """Literal lists, tuples, sets and dict keys in Python ``source`` naming two or more
    registered names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        items: list[ast.expr] = []
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        named = [
            e.value
            for e in items
            if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value in NAMES
        ]
        if len(named) >= 2:
            found.append((node.lineno, named))
    return found


def _js_lists(source: str) -> list[tuple[int, list[str]]]:
    """Array literals in JavaScript ``source`` naming two or more registered names."""
    found = []
    for at, line in enumerate(source.splitlines(), 1):
        for array in re.findall(r"\[([^\[\]]*)\]", line):
            named = [n for n in re.findall(r"[\"']([\w-]+)[\"']", array) if n in NAMES]
            if len(named) >= 2:
                found.append((at, named))
    return found


def test_no_list_of_registered_names_outside_the_registries() -> None:
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        where = path.relative_to(SRC).as_posix()
        if where not in REGISTRIES:
            wrong += [f"{where}:{line} {names}" for line, names in _lists(path.read_text())]
    for path in sorted(SRC.rglob("*.js")):
        where = path.relative_to(SRC).as_posix()
        wrong += [f"{where}:{line} {names}" for line, names in _js_lists(path.read_text())]
    assert not wrong, "a list that belongs to a registry:\n" + "\n".join(wrong)


def test_the_check_sees_a_list_in_python_and_in_javascript() -> None:
    assert _lists('CHOICES = ("salience", "aide")\nX = {"rae": 1, "ilab": 2}\n') == [
        (1, ["salience", "aide"]),
        (2, ["rae", "ilab"]),
    ]
    assert _js_lists('const P = ["salience", "eidet", "x"];') == [(1, ["salience", "eidet"])]
    assert _lists('ONE = ("salience", "something else")\n') == []
