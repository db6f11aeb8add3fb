"""Hindsight's memory banks: the transfer archive its export writes (``hindsight-admin export``,
``GET /v1/.../banks/{bank}/export``: a zip, or its folder unpacked) of ``manifest.json``,
``documents/NNNNNN.json`` (each retained document with the facts extracted from it) and, when
asked for, ``observations.json`` (consolidated observations).

Each fact is one memory: a ``world`` fact a ``fact``, an ``experience`` (what the agent did or
lived) an ``observation``; its context is its title, its entities, tags and metadata are kept
(metadata as ``meta:`` tags), its document is its session, its bank a ``bank:`` tag, and when
it happened an ``occurred:`` tag (its creation time is when Hindsight learned it). Each
observation is an ``insight`` derived from the facts it cites. The facts' causal links,
chunks, the documents' original text, mental models, directives and webhooks of a whole-bank
archive are not memories (counted as not kept). Hindsight's live store is PostgreSQL, read
only by its server: export the bank."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from salience import budget
from salience.errors import InvalidInputError
from salience.sharing.importers.base import Harvest, Item, moment, read_json

SYSTEM = "hindsight"
TYPES = {"world": "fact", "experience": "observation"}
BANK_TABLES = ("mental_models", "directives", "webhooks", "knowledge_pages")


def read(path: Path) -> Harvest:
    """Every fact and observation of the Hindsight archive at ``path`` (the zip, or the
    folder it unpacks to)."""
    archive = _Archive(path)
    manifest = archive.json("manifest.json")
    if not isinstance(manifest, dict) or "source_bank_id" not in manifest:
        raise InvalidInputError("manifest.json is not a Hindsight export's (no source_bank_id)")
    bank = str(manifest["source_bank_id"])
    exported = manifest.get("exported_at")
    harvest = Harvest(SYSTEM)
    for name in archive.names("documents/"):
        document = archive.json(name)
        if not isinstance(document, dict) or not isinstance(document.get("facts"), list):
            harvest.skipped.append((f"{SYSTEM}:{name}", "it is not a Hindsight document"))
            continue
        _document(document, bank, exported, harvest)
    observations = archive.json("observations.json", missing=[])
    for n, observation in enumerate(observations if isinstance(observations, list) else []):
        record = {"id": f"{bank}/observation/{n}"}
        harvest.add(record, _observation, observation, record["id"], bank, exported)
    for table in BANK_TABLES:
        rows = archive.json(f"{table}.json", missing=[])
        if isinstance(rows, list) and rows:
            harvest.unmappable[table.replace("_", " ")] += len(rows)
    return harvest


class _Archive:
    """The export's files, from its zip (read in memory, each member checked against the
    budget's ratio first) or from the folder it unpacks to (its top folder, if one)."""

    def __init__(self, path: Path) -> None:
        self._zip: zipfile.ZipFile | None = None
        self._prefix = ""
        if path.is_file() and zipfile.is_zipfile(path):
            self._zip = zipfile.ZipFile(path)
            members = self._zip.infolist()
            budget.active().archive([(m.filename, m.file_size, m.compress_size) for m in members])
            found = sorted(m.filename for m in members if m.filename.endswith("manifest.json"))
            self._prefix = found[0].removesuffix("manifest.json") if found else ""
            return
        root = path if path.is_dir() else path.parent
        if not (root / "manifest.json").is_file():
            nested = sorted(root.glob("*/manifest.json"))
            root = nested[0].parent if nested else root
        self._root = root

    def names(self, folder: str) -> list[str]:
        """The JSON files in ``folder`` (``documents/``), in order."""
        if self._zip is not None:
            start = self._prefix + folder
            return sorted(
                n.removeprefix(self._prefix)
                for n in self._zip.namelist()
                if n.startswith(start) and n.endswith(".json")
            )
        return [f"{folder}{f.name}" for f in sorted((self._root / folder).glob("*.json"))]

    def json(self, name: str, missing: object = None) -> object:
        """One file's JSON (``missing`` when the archive has no such file, and for the
        manifest, an error saying this is not a Hindsight export)."""
        if self._zip is not None:
            try:
                data = self._zip.read(self._prefix + name)
            except KeyError:
                return self._absent(name, missing)
            budget.active().bytes_read(len(data))
            try:
                return json.loads(data)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise InvalidInputError(f"{name} is not JSON: {exc}") from None
        if not (self._root / name).is_file():
            return self._absent(name, missing)
        return read_json(self._root / name, f"a Hindsight export's {name}")

    @staticmethod
    def _absent(name: str, missing: object) -> object:
        if name == "manifest.json":
            raise InvalidInputError("it is not a Hindsight export (no manifest.json)")
        return missing


def _document(document: dict[str, Any], bank: str, exported: object, harvest: Harvest) -> None:
    doc_id = str(document.get("id"))
    if document.get("original_text"):
        harvest.unmappable["original text"] += 1
    if document.get("chunks"):
        harvest.unmappable["chunks"] += len(document["chunks"])
    for n, fact in enumerate(document["facts"]):
        record = {"id": f"{bank}/{doc_id}#{n}"}
        harvest.add(record, _fact, fact, record["id"], doc_id, document, bank, exported, harvest)


def _fact(
    fact: dict[str, Any],
    ident: str,
    doc_id: str,
    document: dict[str, Any],
    bank: str,
    exported: object,
    harvest: Harvest,
) -> Item:
    text = fact["text"]
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("the fact has no text")
    if fact.get("causal_relations"):
        harvest.unmappable["causal links"] += len(fact["causal_relations"])
    metadata = fact.get("metadata") or {}
    return Item(
        external_id=f"{SYSTEM}:{ident}",
        content=text.strip(),
        type=TYPES.get(str(fact.get("fact_type")), "fact"),
        title=str(fact["context"]) if fact.get("context") else None,
        created_at=moment(
            fact.get("created_at")
            or fact.get("mentioned_at")
            or document.get("created_at")
            or exported
        ),
        tags=[
            f"bank:{bank}",
            *_occurred(fact),
            *(str(t) for t in fact.get("tags") or []),
            *(f"meta:{k}={v}" for k, v in metadata.items() if len(f"{k}={v}") <= 200),
        ],
        session_id=doc_id,
        entities=[str(e) for e in fact.get("entities") or []],
    )


def _occurred(fact: dict[str, Any]) -> list[str]:
    """When the fact happened, as a tag (its day): ``occurred_start``, else ``event_date``."""
    when = fact.get("occurred_start") or fact.get("event_date")
    return [f"occurred:{moment(when).date().isoformat()}"] if when else []


def _observation(observation: dict[str, Any], ident: str, bank: str, exported: object) -> Item:
    text = observation["text"]
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("the observation has no text")
    sources = [
        f"{SYSTEM}:{bank}/{s['document_id']}#{s['fact_index']}"
        for s in observation.get("sources") or []
    ]
    return Item(
        external_id=f"{SYSTEM}:{ident}",
        content=text.strip(),
        type="insight",
        created_at=moment(observation.get("mentioned_at") or exported),
        tags=[f"bank:{bank}", *_occurred(observation), *map(str, observation.get("tags") or [])],
        derived_from=sources,
    )
