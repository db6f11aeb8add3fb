"""A small local HTTP server for tests of the HTTP clients: records every JSON POST and
answers what the test's ``reply`` function returns."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

Request = tuple[str, dict[str, str], dict[str, Any]]
Reply = Callable[[str, dict[str, Any]], tuple[int, Any]]


@contextmanager
def json_server(reply: Reply) -> Iterator[tuple[str, list[Request]]]:
    """``(base URL, requests so far)``; ``reply(path, body)`` gives ``(status, document)``."""
    requests: list[Request] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append((self.path, dict(self.headers), body))
            status, document = reply(self.path, body)
            if status != 200:
                self.send_response(status)
                self.end_headers()
                return
            payload = json.dumps(document).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", requests
    finally:
        httpd.shutdown()
        httpd.server_close()
