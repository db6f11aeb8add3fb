"""Letta's memory: the memory blocks of an Agent File (``.af``, what ``letta export`` and
``client.agents.export_file`` write: ``agents``, ``blocks``, ``tools``...; the JSON may itself
be a JSON string, as older exports are), and the block files of a MemFS checkout (git-backed
memory: ``{label}.md``, YAML front matter ``description`` / ``read_only`` / ``metadata``,
then the block's value; ``skills/{name}/SKILL.md`` is the skill ``skills/{name}``). A folder
is read for its Agent Files, or, if it holds none, as a MemFS checkout.

Each block is one memory: ``human`` a ``profile``, ``persona`` a ``preference`` (how the
agent is to be), a skill a ``procedure``, any other label a ``fact``; its description is its
title, its label a ``block:`` tag and each agent that holds it an ``agent:`` tag. Its id is the
agent's name and the label (``letta:ezra/human``: the same on every export, so importing a
newer export updates it; a block shared by agents is one memory). Letta keeps no time per
block: the file's ``created_at`` (else its mtime) is used. An Agent File holds no archival
memory (Letta's export leaves passages out); its conversation, tools, files, sources and
system prompts are not memories (counted as not kept). A MemFS repository itself
(``~/.letta/memfs/.../repo.git``) is a bare git repository: check it out (``git clone``) and
import the folder."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from salience.errors import InvalidInputError
from salience.sharing.importers.base import Harvest, Item, moment, read_json
from salience.sharing.importers.markdown import read_parts

SYSTEM = "letta"
TYPES = {"human": "profile", "persona": "preference"}
NOT_MEMORY = ("tools", "files", "sources", "groups", "mcp_servers", "skills")
_BLOCK_FIELDS = {"id", "label", "value", "description", "read_only", "limit", "hidden", "tags"}


def read(path: Path) -> Harvest:
    """Every memory block in the Agent File(s) or MemFS checkout at ``path``."""
    harvest = Harvest(SYSTEM)
    if path.is_file():  # (one file: a block file, or an Agent File whatever its name)
        if path.suffix == ".md":
            _block_file(path, path.parent, harvest)
        else:
            _agent_file(path, harvest)
        return harvest
    files = sorted(path.rglob("*"))
    agent_files = [f for f in files if f.suffix == ".af" and not _hidden(f.relative_to(path))]
    for file in agent_files:
        _agent_file(file, harvest)
    if not agent_files:  # (beside an Agent File, a .md is its README)
        blocks = [f for f in files if f.suffix == ".md" and not _hidden(f.relative_to(path))]
        for file in blocks:
            _block_file(file, path, harvest)
    if not harvest.items and not harvest.skipped:
        raise InvalidInputError(f"{path} holds no Letta Agent File (.af) and no block files")
    return harvest


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _agent_file(file: Path, harvest: Harvest) -> None:
    data: Any = read_json(file, "a Letta Agent File")
    if isinstance(data, str):  # (older exports: the schema as a JSON string)
        try:
            data = json.loads(data)
        except json.JSONDecodeError:
            raise InvalidInputError(f"{file.name} is not a Letta Agent File") from None
    if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
        raise InvalidInputError(f"{file.name} is not a Letta Agent File (no agents)")
    when = moment(data.get("created_at"), file_time=file.stat().st_mtime)
    blocks = {str(b.get("id")): b for b in data.get("blocks") or [] if isinstance(b, dict)}
    holders: dict[str, list[str]] = {}
    for agent in data["agents"]:
        if not isinstance(agent, dict):
            harvest.skipped.append((f"{SYSTEM}:{agent!r:.40}", "an agent that is not an object"))
            continue
        name = str(agent.get("name") or agent.get("id") or "agent")
        for block_id in agent.get("block_ids") or []:
            holders.setdefault(str(block_id), []).append(name)
        for inline in agent.get("memory_blocks") or []:  # (blocks written in the agent)
            if isinstance(inline, dict):
                key = f"{name}/{inline.get('label')}"
                blocks[key] = inline
                holders.setdefault(key, []).append(name)
        _not_kept(agent, harvest)
    for name in NOT_MEMORY:
        if data.get(name):
            harvest.unmappable[name] += len(data[name])
    for block_id, block in blocks.items():
        agents = holders.get(block_id, [])
        harvest.add(block, _block, block, agents, when, harvest)


def _not_kept(agent: dict[str, Any], harvest: Harvest) -> None:
    """Count what an agent holds that is not a memory."""
    if agent.get("messages"):
        harvest.unmappable["messages"] += len(agent["messages"])
    if agent.get("system"):
        harvest.unmappable["system prompt"] += 1


def _block(block: dict[str, Any], agents: list[str], when: datetime, harvest: Harvest) -> Item:
    label = str(block["label"])
    value = block["value"]
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"the block {label!r} is empty")
    for key, found in block.items():
        if key not in _BLOCK_FIELDS and key != "metadata":
            harvest.unmapped(f"block {key}", found)
    if block.get("metadata"):
        harvest.unmapped("block metadata", block["metadata"])
    owner = agents[0] if agents else "shared"
    return Item(
        external_id=f"{SYSTEM}:{owner}/{label}",
        content=value.strip(),
        type=_type(label),
        title=str(block.get("description") or label),
        created_at=when,
        tags=[
            f"block:{label}",
            *(f"agent:{a}" for a in dict.fromkeys(agents)),
            *(["read-only"] if block.get("read_only") else []),
            *(str(t) for t in block.get("tags") or [] if isinstance(t, str)),
        ],
    )


def _type(label: str) -> str:
    if label.startswith("skills/"):
        return "procedure"
    return TYPES.get(label.rsplit("/", 1)[-1], "fact")


def _block_file(file: Path, root: Path, harvest: Harvest) -> None:
    relative = file.relative_to(root).as_posix()
    if relative.startswith("skills/"):
        steps = relative.split("/")
        if len(steps) != 3 or steps[2] != "SKILL.md":
            return  # (a skill's other files are not blocks: Letta syncs SKILL.md alone)
        label = f"skills/{steps[1]}"
    else:
        label = relative.removesuffix(".md")
    parts = read_parts(file, f"{SYSTEM}:{label}", harvest)
    if parts is None:
        return
    meta, body = parts
    block = {"label": label, "value": body, **meta}
    agent = root.name
    when = moment(None, file_time=file.stat().st_mtime)
    harvest.add(block, _block, block, [agent], when, harvest)
