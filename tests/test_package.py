"""The public surface: a flat sorted __all__, and docs that list every command and setting."""

from __future__ import annotations

from pathlib import Path

import click

import salience
from salience.cli import cli, load_commands
from salience.cli.commands import COMMANDS, LaterGroup
from salience.config import describe

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
CLI_DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
SETTINGS_DOC = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
PROFILES_DOC = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")


def test_all_is_sorted_and_importable() -> None:
    assert salience.__all__ == sorted(salience.__all__)
    for name in salience.__all__:
        assert hasattr(salience, name), name


def test_readme_starts_with_the_two_commands() -> None:
    head = README.split("\n\n", 2)[1]
    assert "make run" in head
    assert "make test" in head


def _modules(command: click.Command) -> set[str]:
    found = {command.callback.__module__} if command.callback is not None else set()
    if isinstance(command, LaterGroup):
        command._load()
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            found |= _modules(sub)
    return found


def test_each_command_names_the_modules_that_define_it() -> None:
    """A call imports only its command's modules (COMMANDS): each must name them all, or a
    subcommand defined elsewhere (``briefing log``) would be missing."""
    load_commands()
    for name, command in cli.commands.items():
        named = (*COMMANDS[name], *getattr(command, "later", ()))
        assert _modules(command) == {f"salience.cli.{m}" for m in named}, name


def test_every_cli_command_is_documented() -> None:
    load_commands()
    assert sorted(cli.commands) == cli.list_commands(click.Context(cli))
    for name in cli.commands:
        assert f"`salience {name}" in CLI_DOC, f"docs/cli.md does not document `salience {name}`"


def test_every_setting_is_documented() -> None:
    for _, env, _ in describe():
        assert f"`{env}`" in SETTINGS_DOC, f"docs/configuration.md does not document {env}"


def test_every_profile_is_documented() -> None:
    from salience.profiles import PROFILES

    scoring = (Path(__file__).parent.parent / "docs" / "scoring.md").read_text(encoding="utf-8")
    for name in PROFILES:
        assert f"`{name}`" in PROFILES_DOC, f"docs/profiles.md does not list the {name} profile"
        assert f"## {name}" in scoring, f"docs/scoring.md has no section for {name}"


def test_every_public_verbs_types_and_every_error_are_exported() -> None:
    """What a public verb of Memory returns (walked through unions and containers), and
    every error class, can be named as ``salience.X``."""
    import inspect
    import typing

    from salience import errors
    from salience.engine.memory import Memory
    from salience.models import evaluation, hits, reports, results, store_records, traces

    # (imported by the verbs that make them)
    later = {
        name: value
        for module in (reports, evaluation, hits, results, store_records, traces)
        for name, value in vars(module).items()
    }

    missing: set[str] = set()

    def walk(hint: object) -> None:
        args = typing.get_args(hint)
        for arg in args:
            walk(arg)
        ours = isinstance(hint, type) and hint.__module__.startswith("salience")
        if not args and ours and getattr(hint, "__name__", "") not in salience.__all__:
            missing.add(f"{getattr(hint, '__module__', '')}.{getattr(hint, '__name__', '')}")

    for name, verb in inspect.getmembers(Memory, predicate=inspect.isfunction):
        if not name.startswith("_"):
            walk(typing.get_type_hints(verb, localns=later).get("return"))
    for name, value in vars(errors).items():
        error = isinstance(value, type) and issubclass(value, errors.SalienceError)
        if error and name not in salience.__all__:
            missing.add(f"salience.errors.{name}")
    assert missing == set()
