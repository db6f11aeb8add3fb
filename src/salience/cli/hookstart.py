"""``salience hook session-start`` and a plain ``salience briefing`` computed in this process,
without the CLI's machinery.

When no running server answers (:mod:`.warm`), the hook computes the briefing itself. Through
click it also loaded click, the command table and every module a command's output needs
(~50 ms of a ~420 ms process at 100k memories); here it loads the configuration and the
briefing part of the engine (:mod:`salience.engine.briefs`: none of the other verbs'
modules), opens the store, briefs and prints: the same output, recorded the same way. A
``salience briefing`` with no option but the hook's own is answered the same way (a preview,
not recorded, printed as the command prints it). Anything out of the ordinary (an option it
does not know, no store yet, an empty briefing, a layer left out, any error) answers None,
and the command runs through click as before, which reports it as every command does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from salience.cli.warm import hook_output, options

if TYPE_CHECKING:
    from collections.abc import Callable

    from salience.engine.briefs import Briefs


def cold_hook(args: list[str]) -> str | None:
    """The hook's output, computed here, or None (leave it to the CLI)."""

    def answer(memory: Briefs, given: dict[str, str]) -> str:
        text = memory.briefing(given.get("--profile"), project=given.get("--project"))
        return hook_output(text.context)

    return _computed(args, answer)


def cold_briefing(args: list[str]) -> str | None:
    """What ``salience briefing`` prints on stdout (without its last newline), computed
    here, or None (leave it to the CLI)."""

    def answer(memory: Briefs, given: dict[str, str]) -> str | None:
        result = memory.briefing(project=given.get("--project"), record=False)
        if not result.text or memory.unavailable_layers():
            return None  # (a hint or a warning on stderr: the CLI's own words)
        from salience.text import shown

        return shown(result.text)

    return _computed(args, answer)


def _computed(
    args: list[str], answer: Callable[[Briefs, dict[str, str]], str | None]
) -> str | None:
    """``answer`` on the store the options name, or None if the options or the store are
    out of the ordinary, or anything fails."""
    given = options(args)
    if given is None:
        return None
    try:
        memory = _opened(given)
        if memory is None:
            return None
        with memory:
            return answer(memory, given)
    except Exception:  # (the CLI runs it again, and reports the error as every command does)
        return None


def _opened(given: dict[str, str]) -> Briefs | None:
    """The engine's briefing part on the store the options name; None if that store is not
    a file that exists (another store, or none yet: the CLI opens it, or says there is none)."""
    from dataclasses import replace

    from salience.config import Config
    from salience.engine.briefs import Briefs

    home = given.get("--home")
    config = Config.for_home(home) if home is not None else Config.from_env()
    if "--user" in given:
        config = replace(config, user=given["--user"])
    if "--profile" in given:
        config = replace(config, profile=given["--profile"])
    if config.store_url or not config.db_path.is_file():
        return None
    # (no embedder: a briefing embeds nothing, and its module and threads cost ~10 ms)
    return Briefs.open(config=config, create=False, embedder=None)
