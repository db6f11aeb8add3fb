"""mem0's local Qdrant store (``<path>/collection/<name>/storage.sqlite``), read without
running anything in it.

qdrant-client keeps each point as a pickle, and unpickling can run any code the file names.
So the points are read by an unpickler that refuses every class but the two a point is made
of (``PointStruct``, ``SparseVector``), and gives those back as inert records of their state:
no qdrant-client is imported and no method of the file's choosing is called. A file naming
anything else is refused whole."""

from __future__ import annotations

import base64
import io
import pickle
from pathlib import Path
from typing import Any

from salience.errors import InvalidInputError
from salience.sharing.importers.base import open_read_only

ALLOWED = {
    ("qdrant_client.http.models.models", "PointStruct"),
    ("qdrant_client.http.models.models", "SparseVector"),
}


class Inert:
    """A refused class's stand-in: it only keeps the state the pickle gives it."""

    state: Any = None

    def __setstate__(self, state: Any) -> None:
        self.state = state


class _Restricted(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not a part of a Qdrant point")
        return type(name, (Inert,), {})

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("a Qdrant point holds no persistent references")


def _load(blob: bytes) -> Any:
    return _Restricted(io.BytesIO(blob)).load()


def points(folder: Path) -> list[dict[str, Any]]:
    """Every point's id and payload in the Qdrant store at ``folder`` (its ``collection``
    folders), as mem0's ``get_all`` would list them."""
    found: list[dict[str, Any]] = []
    for storage in sorted(folder.glob("collection/*/storage.sqlite")):
        conn = open_read_only(storage)
        try:
            rows = list(conn.execute("SELECT id, point FROM points"))
        finally:
            conn.close()
        for ident, blob in rows:
            try:
                point = _load(bytes(blob))
                key = _load(base64.b64decode(ident))
            except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as exc:
                raise InvalidInputError(
                    f"{storage}: a point cannot be read safely ({exc})"
                ) from None
            state = point.state.get("__dict__", point.state) if isinstance(point, Inert) else None
            if not isinstance(state, dict) or not isinstance(state.get("payload"), dict):
                raise InvalidInputError(f"{storage}: a point has no payload")
            payload = dict(state["payload"])
            if "data" not in payload:
                continue
            row = {"id": str(key), "memory": payload.pop("data")}
            for name in (
                "created_at",
                "updated_at",
                "user_id",
                "agent_id",
                "run_id",
                "actor_id",
                "role",
                "attributed_to",
                "expiration_date",
                "memory_type",
            ):
                if name in payload:
                    row[name] = payload.pop(name)
            payload.pop("hash", None)
            payload.pop("text_lemmatized", None)
            row["metadata"] = payload or None
            found.append(row)
    return found
