"""Generate the reference tables in docs/ from the code: settings, CLI commands, HTTP routes
and MCP tools, each between ``<!-- generated: NAME -->`` and ``<!-- end generated -->``.

    python scripts/gen_docs.py          # rewrite the tables
    python scripts/gen_docs.py --check  # exit 1 naming every stale table (tests/test_docs.py)
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MARK = re.compile(r"(<!-- generated: ([\w-]+) -->\n)(.*?)(<!-- end generated -->)", re.S)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _first_sentence(text: str | None) -> str:
    paragraph = (text or "").strip().split("\n\n")[0]
    return _cell(paragraph)


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def settings() -> str:
    from salience.config import Config

    rows = []
    for field in dataclasses.fields(Config):
        env = field.metadata.get("env")
        if not env:
            continue
        default = field.default
        shown = "" if default in ("", None) else f"`{default}`"
        if default is dataclasses.MISSING:
            shown = "(see meaning)"
        elif isinstance(default, bool):
            shown = "on" if default else "off"
        elif isinstance(default, tuple) and all(isinstance(p, tuple) for p in default):
            shown = "`" + ",".join(f"{k}={v:g}" for k, v in default) + "`"
        rows.append([f"`{env}`", f"`{field.name}`", shown, _cell(field.metadata.get("help", ""))])
    return _table(["variable", "config.toml key", "default", "meaning"], rows)


def _commands(group: click.Group, prefix: str) -> Iterator[tuple[str, click.Command]]:
    for name in sorted(group.commands):
        command = group.commands[name]
        path = f"{prefix} {name}"
        if isinstance(command, click.Group):
            yield from _commands(command, path)
        else:
            yield path, command


COMMON = ("--home", "--profile", "--store", "--user")
"""Options (nearly) every command takes: said once above the table, not in every row."""


def cli() -> str:
    from salience.cli import cli as root
    from salience.cli import load_commands

    load_commands()
    rows = []
    for path, command in _commands(root, "salience"):
        arguments = " ".join(
            p.human_readable_name.upper() for p in command.params if isinstance(p, click.Argument)
        )
        options = sorted(
            max(p.opts, key=len)
            for p in command.params
            if isinstance(p, click.Option)
            and not p.hidden
            and not {"--help", *COMMON}.intersection(p.opts)
        )
        usage = f"`{path}{' ' + arguments if arguments else ''}`"
        rows.append(
            [usage, _cell(" ".join(f"`{o}`" for o in options)), _first_sentence(command.help)]
        )
    return _table(["command", "options", "what it does"], rows)


def _with_app(use: Callable[[Any], str]) -> str:
    from salience import Config, Memory
    from salience.server.app import create_app

    with (
        tempfile.TemporaryDirectory() as home,
        Memory.open(config=Config(home=Path(home)), embedder=None) as memory,
    ):
        return use(create_app(memory))


def _routes(prefix: str, exclude: tuple[str, ...] = ()) -> str:
    def table(app: Any) -> str:
        rows = []
        for path, methods in app.openapi()["paths"].items():
            if not path.startswith(prefix) or path.startswith(exclude):
                continue
            for method, operation in methods.items():
                summary = _first_sentence(operation.get("description") or operation.get("summary"))
                rows.append([f"`{method.upper()} {path}`", summary])
        return _table(["route", "what it does"], rows)

    return _with_app(table)


def _tools(tool_set: str) -> str:
    import anyio

    from salience import Config, Memory
    from salience.mcp_server import create_mcp_server

    with (
        tempfile.TemporaryDirectory() as home,
        Memory.open(config=Config(home=Path(home)), embedder=None) as memory,
    ):
        server = create_mcp_server(memory, tools=tool_set)
        tools = anyio.run(server.list_tools)
    rows = []
    for tool in tools:
        schema = tool.input_schema.get("properties", {})
        required = set(tool.input_schema.get("required", []))
        params = ", ".join(f"`{p}`" if p in required else f"`{p}?`" for p in schema)
        rows.append([f"`{tool.name}`", params, _first_sentence(tool.description)])
    return _table(["tool", "parameters (? optional)", "what it does"], rows)


def _write_authority() -> str:
    from salience.write.rulebook import rules_table

    return rules_table() + "\n"


GENERATORS: dict[str, Callable[[], str]] = {
    "settings": settings,
    "cli": cli,
    "http-native": lambda: _routes("/", exclude=("/compat",)),
    "http-rae": lambda: _routes("/compat/rae"),
    "http-eidet": lambda: _routes("/compat/eidet"),
    "write-authority": _write_authority,
    **{
        f"mcp-{name}": (lambda n=name: _tools(n))
        for name in ("salience", "aide", "eidet", "ilab", "talome", "rae")
    },
}


def render(text: str, cache: dict[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in GENERATORS:
            raise SystemExit(f"unknown generated table {name!r}")
        if name not in cache:
            cache[name] = GENERATORS[name]()
        return match.group(1) + cache[name] + match.group(4)

    return MARK.sub(replace, text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only say which tables are stale")
    args = parser.parse_args()
    cache: dict[str, str] = {}
    stale = []
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        fresh = render(text, cache)
        if fresh != text:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(fresh, encoding="utf-8")
    if args.check and stale:
        print("stale generated tables in: " + ", ".join(map(str, stale)), file=sys.stderr)
        print("run: python scripts/gen_docs.py", file=sys.stderr)
        return 1
    if not args.check:
        print(f"rewrote {len(stale)} file(s)" if stale else "every table is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
