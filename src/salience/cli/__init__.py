"""The ``salience`` command line: a thin shell over :class:`salience.Memory`.

Each command's module is imported when the command is called (:data:`.app.COMMANDS`), and
click itself only when a command runs: a session-start hook that a running server answers
(:mod:`.warm`) needs neither."""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False  # (typing costs a session-start hook ~8 ms; mypy reads this as True)
if TYPE_CHECKING:
    from salience.cli.app import cli
    from salience.cli.commands import load_commands


def main() -> None:
    """Entry point of the ``salience`` console script. A session-start hook asks a running
    ``salience serve`` first (:mod:`.warm`), then computes its briefing without click
    (:mod:`.hookstart`), before any command is loaded; so does a plain ``salience
    briefing``."""
    # One BLAS thread unless told otherwise: numpy's OpenBLAS starts a thread per core as it
    # loads, which every command pays at start (cold `salience briefing` at 100k, 2-core AVX2,
    # 7 runs alternated: 1-19 ms less per profile, numpy's import 131 -> 109 ms); salience's
    # products are matrix-vector ones, bound by memory, and a server's requests use the cores.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args = sys.argv[1:]
    hook = args[:2] == ["hook", "session-start"]
    if hook or args[:1] == ["briefing"]:
        # A process that only briefs makes no garbage worth the cyclic collector: importing
        # numpy and salience set it off again and again, and at the end it walked every object
        # left (~9 % of a cold briefing's instructions at 100k). Off until answered, and
        # before any other command runs.
        gc.disable()
        answer = _hook(args[2:]) if hook else _briefing(args[1:])
        if answer is not None:
            _write(answer)
            gc.freeze()  # (left to the process's end, which then does not walk them)
            gc.enable()
            return
        gc.enable()
    from salience.cli.app import cli

    cli(prog_name="salience")


def _hook(args: list[str]) -> str | None:
    """The session-start hook's output: asked of a running server, else computed here."""
    from salience.cli.warm import warm_hook

    answer = warm_hook(args)
    if answer is None:
        from salience.cli.hookstart import cold_hook

        answer = cold_hook(args)
    return answer


def _briefing(args: list[str]) -> str | None:
    from salience.cli.hookstart import cold_briefing

    return cold_briefing(args)


def _write(text: str) -> None:
    """``text`` and a newline on stdout; a reader gone away (``| head``) ends the process
    quietly, as the CLI does."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)


def __getattr__(name: str) -> object:
    if name == "cli":
        from salience.cli.app import cli

        return cli
    if name == "load_commands":
        from salience.cli.commands import load_commands

        return load_commands
    raise AttributeError(f"module 'salience.cli' has no attribute {name!r}")


__all__ = ["cli", "load_commands", "main"]
