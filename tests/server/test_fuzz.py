"""schemathesis against the app's own /openapi.json: every route, data that fits the schema
and data that does not; zero 5xx answers and zero answers that break the schema.

Bounded (``FUZZ_EXAMPLES`` per operation and mode, deterministic) so it runs in ``make
test``; ``make fuzz`` runs longer and random.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import schemathesis
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from salience import Config, Memory
from salience.server.app import create_app
from tests.embedder import WordHashEmbedder
from tests.loopback import on_loopback

pytestmark = [pytest.mark.fuzz]

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "12"))
RANDOM = os.environ.get("FUZZ_RANDOM") == "1"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _app() -> object:
    """An app on a store made for this module (removed when the interpreter exits)."""
    home = Path(tempfile.mkdtemp(prefix="salience-fuzz-"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    memory = Memory.open(config=Config(home=home, signal_gate=False), embedder=WordHashEmbedder())
    atexit.register(memory.close)
    for text in ("The staging API listens on 8080", "Deploys go through ops/deploy.sh"):
        memory.remember(text, tags=["project:api"])
    return on_loopback(create_app(memory))


@schemathesis.serializer(
    "application/x-ndjson",
    "application/zip",
    "application/octet-stream",
    "application/x-sqlite3",
    "application/vnd.sqlite3",
    "text/csv",
    "text/markdown",
)
def _as_bytes(ctx: object, value: object) -> bytes:
    """Bodies that are not JSON (JSON Lines, a pack's zip): what was generated, as bytes
    (a file that is not one is a documented refusal, never a 500)."""
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else str(value).encode()


schema = schemathesis.openapi.from_asgi("/openapi.json", _app())
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
    max_examples=EXAMPLES,
    deterministic=not RANDOM,
)


@schema.parametrize()
def test_the_api_keeps_its_own_contract(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=CHECKS)
