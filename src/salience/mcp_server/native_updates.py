"""salience's MCP tools for update pairs: a newer memory found to change what an older one
says, listed, then confirmed (a supersession) or dismissed (never found again)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from salience.mcp_server.shell import CHANGE, READ, WRITE, ToolSet, current
from salience.wire.models import UpdateOut, WriteOut
from salience.wire.values import update_out, write_out

TOOLS = ToolSet()

Id = Annotated[str, Field(description="A memory's id, as updates, recall or list gave it.")]


class Updates(BaseModel):
    """Update pairs in the wire's shape (what ``GET /v1/updates`` answers)."""

    updates: list[UpdateOut]


@TOOLS.tool(annotations=READ)
def updates(state: Literal["open", "confirmed", "dismissed", "all"] = "open") -> Updates:
    """Pairs where a newer memory was found to change what an older one says (a
    different value, a "no", words of change), each with why; open ones wait for a
    decision: the newer ranks and is briefed first meanwhile."""
    shell = current()
    found = shell.run(lambda m: m.updates(user=shell.user, state=state))
    return Updates(updates=[UpdateOut.model_validate(update_out(x)) for x in found])


@TOOLS.tool(annotations=CHANGE)
def confirm_update(new_id: Id, old_id: Id) -> WriteOut:
    """The newer memory replaces the older: the older is superseded (readable in its
    history), what was built on it goes stale."""
    shell = current()
    result = shell.write(lambda m: m.confirm_update(new_id, old_id, user=shell.user))
    return WriteOut.model_validate(write_out(result))


@TOOLS.tool(annotations=WRITE)
def dismiss_update(new_id: Id, old_id: Id) -> UpdateOut:
    """Not an update: both memories stay as they are, and the pair is never found again."""
    shell = current()
    shell.may_write()
    link = shell.run(lambda m: m.dismiss_update(new_id, old_id, user=shell.user))
    return UpdateOut.model_validate(update_out(link))
