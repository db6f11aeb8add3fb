"""Write a real mem0 store (run by tests/sharing/test_real_programs.py in a venv holding
mem0ai): 50 memories of 3 users, then 6 updates and 4 deletes, with mem0's local Qdrant and
its history.db in OUT/store, each user's ``get_all`` in OUT/store/get_all.json, and the ids
updated and deleted in OUT/ids.json. mem0 embeds through
an OpenAI-compatible endpoint: this script serves one on loopback that gives each text a
vector from its hash (no model, no network); ``infer=False`` asks no LLM.

    python mem0_store.py OUT
"""

import hashlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

DIMS = 64


def _vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest() * 2
    return [(b - 127.5) / 127.5 for b in digest[:DIMS]]


class _Embeddings(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        payload = json.dumps(
            {
                "object": "list",
                "data": [
                    {"object": "embedding", "index": n, "embedding": _vector(str(t))}
                    for n, t in enumerate(texts)
                ],
                "model": body.get("model", "fake"),
                "usage": {"prompt_tokens": 0, "total_tokens": 0},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


def main(out: Path) -> None:
    store = out / "store"
    store.mkdir(parents=True)
    server = HTTPServer(("127.0.0.1", 0), _Embeddings)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/v1"
    os.environ.update({"MEM0_TELEMETRY": "False", "OPENAI_API_KEY": "not-used"})
    from mem0 import Memory

    memory = Memory.from_config(
        {
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "path": str(store / "qdrant"),
                    "collection_name": "mem0",
                    "embedding_model_dims": DIMS,
                    "on_disk": True,
                },
            },
            "embedder": {
                "provider": "openai",
                "config": {"model": "fake", "openai_base_url": base, "embedding_dims": DIMS},
            },
            "llm": {"provider": "openai", "config": {"model": "fake", "openai_base_url": base}},
            "history_db_path": str(store / "history.db"),
        }
    )
    users = ("alice", "bob", "carol")
    ids: list[tuple[str, str]] = []
    for n in range(50):
        user = users[n % 3]
        text = f"{user} note {n}: the crane on site {n % 7} was inspected on day {n}"
        metadata = {"category": "site", "tags": ["crane", f"site-{n % 7}"]} if n % 5 == 0 else None
        added = memory.add(
            [{"role": "user", "content": text, "name": f"{user}_w"}],
            user_id=user,
            infer=False,
            metadata=metadata,
        )
        ids += [(user, r["id"]) for r in added["results"]]
    for n in range(6):
        user, memory_id = ids[n]
        memory.update(memory_id, text=f"{user} note {n}, corrected: the crane passed on day {n}")
    for _user, memory_id in ids[10:14]:
        memory.delete(memory_id)
    listed = []
    for user in users:
        listed += memory.get_all(filters={"user_id": user}, top_k=1000)["results"]
    (store / "get_all.json").write_text(json.dumps({"results": listed}, indent=1, default=str))
    (out / "ids.json").write_text(json.dumps({"updated": ids[:6], "deleted": ids[10:14]}))
    server.shutdown()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
