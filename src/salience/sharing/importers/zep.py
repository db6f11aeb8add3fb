"""Zep's and Graphiti's temporal knowledge graph: its facts (entity edges), episodes and
entities, as JSON of their own models. Graphiti keeps its graph in Neo4j, FalkorDB or Kuzu,
read only through its driver, and Zep's cloud graph only through its API: neither writes an
export file, so the input is what their own calls return, dumped to JSON: a document
``{"edges": [...], "episodes": [...], "nodes": [...]}`` (any of them), a folder holding
``edges.json`` / ``episodes.json`` / ``nodes.json``, or one list of either kind. With Graphiti::

    edges = await EntityEdge.get_by_group_ids(driver, [group])
    episodes = await EpisodicNode.get_by_group_ids(driver, [group])
    nodes = await EntityNode.get_by_group_ids(driver, [group])
    json.dump({"edges": [e.model_dump(mode="json", exclude={"fact_embedding"}) for e in edges],
               "episodes": [...], "nodes": [...]}, file)

and with Zep's SDK, ``client.graph.edge.get_by_user_id`` and ``client.graph.episode
.get_by_user_id`` (their ``model_dump``).

Each fact (an edge's ``fact``) is one ``fact``: its relation name its title, its end nodes'
names its entities, its validity kept: a fact that stopped being true (``invalid_at``) or was
replaced (``expired_at``) ends then (``valid_until``), and when it became true is a
``valid-from:`` tag. Each episode (a message, a text or a JSON document given to the graph) is
an ``observation`` of its time (``valid_at``). Each entity with a summary is an ``insight``
about it. ``group_id`` is the source's user. Embeddings and attributes are not kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from salience.errors import InvalidInputError
from salience.sharing.importers.base import Harvest, Item, moment, read_json

SYSTEM = "zep"
KINDS = ("edges", "episodes", "nodes")


def read(path: Path) -> Harvest:
    """Every fact, episode and entity summary in the JSON at ``path``."""
    graph = _graph(path)
    harvest = Harvest(SYSTEM)
    names = {str(n.get("uuid")): str(n.get("name")) for n in graph["nodes"] if isinstance(n, dict)}
    for edge in graph["edges"]:
        harvest.add(edge, _fact, edge, names, harvest)
    for episode in graph["episodes"]:
        harvest.add(episode, _episode, episode, harvest)
    for node in graph["nodes"]:
        if isinstance(node, dict) and not node.get("summary"):
            continue  # (an entity without a summary says nothing of its own)
        harvest.add(node, _entity, node, harvest)
    if not any(graph.values()):
        raise InvalidInputError(f"{path.name} holds no Zep or Graphiti edges, episodes or nodes")
    return harvest


def _graph(path: Path) -> dict[str, list[Any]]:
    """The edges, episodes and nodes at ``path`` (a document, a folder, or one list)."""
    if path.is_dir():
        files = {kind: path / f"{kind}.json" for kind in KINDS}
        if not any(f.is_file() for f in files.values()):
            raise InvalidInputError(f"{path} holds no edges.json, episodes.json or nodes.json")
        return {
            k: _list(read_json(f, f"Zep's {k}"), k) if f.is_file() else [] for k, f in files.items()
        }
    data = read_json(path, "Zep's or Graphiti's graph as JSON")
    if isinstance(data, list):
        return {kind: data if _kind(data) == kind else [] for kind in KINDS}
    if isinstance(data, dict) and any(kind in data for kind in KINDS):
        return {kind: _list(data.get(kind) or [], kind) for kind in KINDS}
    raise InvalidInputError(f"{path.name} is not Zep's or Graphiti's graph (no edges or episodes)")


def _list(value: object, kind: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidInputError(f"its {kind} are not a list")
    return value


def _kind(rows: list[Any]) -> str:
    """What a bare list holds: edges have a fact, episodes content, nodes a summary."""
    first = next((r for r in rows if isinstance(r, dict)), {})
    if "fact" in first:
        return "edges"
    return "episodes" if "content" in first else "nodes"


def _fact(edge: dict[str, Any], names: dict[str, str], harvest: Harvest) -> Item:
    fact = edge["fact"]
    if not isinstance(fact, str) or not fact.strip():
        raise InvalidInputError("the edge has no fact")
    ends = [names.get(str(edge.get(end))) for end in ("source_node_uuid", "target_node_uuid")]
    stopped = edge.get("invalid_at") or edge.get("expired_at")
    began = edge.get("valid_at")
    _not_kept(edge, harvest, "fact_embedding")
    return Item(
        external_id=f"{SYSTEM}:edge:{edge['uuid']}",
        content=fact.strip(),
        type="fact",
        title=str(edge.get("name") or "") or None,
        created_at=moment(edge["created_at"]),
        tags=[f"valid-from:{moment(began).date().isoformat()}"] if began else [],
        entities=[e for e in ends if e],
        source_user=_group(edge),
        valid_until=moment(stopped) if stopped else None,
    )


def _episode(episode: dict[str, Any], harvest: Harvest) -> Item:
    content = episode["content"]
    if not isinstance(content, str) or not content.strip():
        raise InvalidInputError("the episode has no content")
    source, about = episode.get("source"), episode.get("source_description")
    _not_kept(episode, harvest, "embedding")
    if episode.get("entity_edges"):
        harvest.unmappable["episode links to facts"] += 1
    return Item(
        external_id=f"{SYSTEM}:episode:{episode['uuid']}",
        content=content.strip(),
        type="observation",
        title=str(episode.get("name") or "") or None,
        created_at=moment(episode.get("valid_at") or episode["created_at"]),
        tags=[
            *([f"episode-source:{source}"] if source else []),
            *([f"about:{about}"] if about else []),
        ],
        source_user=_group(episode),
    )


def _entity(node: dict[str, Any], harvest: Harvest) -> Item:
    name = str(node["name"])
    _not_kept(node, harvest, "name_embedding")
    return Item(
        external_id=f"{SYSTEM}:node:{node['uuid']}",
        content=str(node["summary"]).strip(),
        type="insight",
        title=name,
        created_at=moment(node["created_at"]),
        tags=[f"label:{label}" for label in node.get("labels") or [] if label != "Entity"],
        entities=[name],
        source_user=_group(node),
    )


def _group(row: dict[str, Any]) -> str | None:
    return str(row["group_id"]) if row.get("group_id") else None


def _not_kept(row: dict[str, Any], harvest: Harvest, embedding: str) -> None:
    harvest.unmapped("embeddings", row.get(embedding))
    harvest.unmapped("attributes", row.get("attributes"))
