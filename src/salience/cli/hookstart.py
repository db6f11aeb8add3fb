"""``salience hook session-start`` computed in this process, without the CLI's machinery.

When no running server answers (:mod:`.warm`), the hook computes the briefing itself. Through
click it also loaded click, the command table and every module a command's output needs
(~50 ms of a ~420 ms process at 100k memories); here it loads the configuration and the
briefing part of the engine (:mod:`salience.engine.briefs`: none of the other verbs'
modules), opens the store, briefs and prints: the same output, recorded the same way. Anything
out of the ordinary (an option it does not know, no store yet, any error) answers None, and
the hook runs through click as before, which reports it as every command does.
"""

from __future__ import annotations

from salience.cli.warm import hook_output, options


def cold_hook(args: list[str]) -> str | None:
    """The hook's output, computed here, or None (leave it to the CLI)."""
    given = options(args)
    if given is None:
        return None
    try:
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
            return None  # (another store, or none yet: the CLI opens it, or says there is none)
        with Briefs.open(config=config, create=False) as memory:
            text = memory.briefing(given.get("--profile"), project=given.get("--project"))
        return hook_output(text.context)
    except Exception:  # (the CLI runs it again, and reports the error as every command does)
        return None
