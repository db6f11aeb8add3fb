"""Start a throwaway PostgreSQL 16 + pgvector (the one the tests use) and print its URL.

    python scripts/postgres_dev.py      # Ctrl-C stops it and removes its files

For trying salience on PostgreSQL, and for the benchmarks' ``--store``, on a machine without
a server of its own: it runs pgserver's binaries in a temporary directory (as ``nobody``
when started by root), on a unix socket there.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.postgres import Server


def main() -> None:
    server = Server()
    print(server.url, flush=True)
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        server.stop()


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    main()
