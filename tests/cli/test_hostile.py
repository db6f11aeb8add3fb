"""Every CLI command with hostile input: undecodable text, huge numbers, NUL bytes, 100 KB
arguments, bytes that are not UTF-8 on standard input. No traceback ever; an error is one
line on stderr with exit code 1 (a user error) or 2 (a usage error)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from salience.cli import cli, load_commands

HOSTILE_TEXT = {
    "undecodable": "caf\udce9",  # what an invalid UTF-8 argument becomes in Python
    "nul": "a\x00b",
    "huge text": "x" * 100_000,
}
HUGE_NUMBER = "99999999999999999999"


def _commands(
    group: click.Group, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    load_commands()
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name), command


def _cases() -> Iterator[tuple[str, list[str], bytes | None]]:
    for path, command in _commands(cli):
        if path in (("serve",), ("mcp",)):
            continue  # long-running servers: their options are checked below, not run
        arguments = [p for p in command.params if isinstance(p, click.Argument)]
        for label, text in HOSTILE_TEXT.items():
            args = [text for _ in arguments]
            yield f"{' '.join(path)} [{label} arguments]", [*path, *args], None
        for option in command.params:
            if (
                not isinstance(option, click.Option)
                or option.is_flag
                or (option.expose_value is False and option.name != "user")
            ):
                continue
            flag = option.opts[0]
            kind = option.type
            value = (
                HUGE_NUMBER
                if isinstance(
                    kind, click.IntRange | click.types.IntParamType | click.types.FloatParamType
                )
                else HOSTILE_TEXT["undecodable"]
            )
            args = ["01ARZ3NDEKTSV4RRFFQ69G5FAV" for _ in arguments]
            yield f"{' '.join(path)} {flag}={value[:12]}", [*path, *args, flag, value], None
        if arguments and path[-1] in ("remember", "recall", "supersede"):
            stdin = b"caf\xe9 \x00 au lait " * 10
            args = ["01ARZ3NDEKTSV4RRFFQ69G5FAV"] * (len(arguments) - 1) + ["-"]
            yield f"{' '.join(path)} [stdin not UTF-8]", [*path, *args], stdin


CASES = list(_cases())


@pytest.mark.parametrize(("case", "args", "stdin"), CASES, ids=[c[0] for c in CASES])
def test_hostile_input_is_one_line_and_no_traceback(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    case: str,
    args: list[str],
    stdin: bytes | None,
) -> None:
    runner = CliRunner(env={"SALIENCE_EMBEDDER": "none", "SALIENCE_HOME": str(tmp_path / "home")})
    # Commands that write a file named by their argument (export, pack) must write it here,
    # never into the checkout the tests run from.
    monkeypatch.chdir(tmp_path)
    runner.invoke(cli, ["remember", "a store with one memory in it"])
    result: Result = runner.invoke(cli, args, input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{case}: {type(result.exception).__name__}: {result.exception}"
    )
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1, 2), case
    if result.exit_code:
        lines = result.stderr.strip("\n").splitlines()
        assert len(lines) == 1, (case, result.stderr[:500])
        assert lines[0].startswith(("error: ", "rejected by the")), (case, lines[0][:200])
        assert len(lines[0]) < 2_000, case  # an error never repeats a 100 KB argument


def test_huge_numbers_are_refused_where_they_count(tmp_path: Path) -> None:
    runner = CliRunner(env={"SALIENCE_EMBEDDER": "none", "SALIENCE_HOME": str(tmp_path / "home")})
    runner.invoke(cli, ["remember", "a store with one memory in it"])
    for args in (["recall", "anything", "--limit", HUGE_NUMBER], ["list", "--limit", HUGE_NUMBER]):
        result = runner.invoke(cli, args)
        assert result.exit_code == 2
        assert "is not in the range" in result.stderr
