"""JSON over HTTP for the optional remote services (embedders, LLM summaries), stdlib only.

Errors name the host and what went wrong, never a credential or the text that was sent.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from salience.errors import SalienceError

TIMEOUT_S = 60.0


def host(url: str) -> str:
    """``scheme://host[:port]`` of a URL: what an error may show of it."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")


def post_json(
    url: str,
    body: dict[str, Any],
    headers: dict[str, str],
    *,
    error: type[SalienceError],
    timeout: float = TIMEOUT_S,
) -> Any:
    """POST ``body`` as JSON and decode the answer; failures raise ``error``."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json", **headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        exc.close()
        raise error(f"{host(url)} answered HTTP {exc.code} ({exc.reason})") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise error(f"cannot reach {host(url)}: {reason}") from None
    except ValueError:
        raise error(f"{host(url)} did not answer with JSON") from None


_PASSWORD = re.compile(r"(://[^/@:]*):[^/@]*@")


def redact(url: str) -> str:
    """The URL without its password (``postgresql://app@db/memory``): what a message or a
    store's location may show of a connection URL."""
    return _PASSWORD.sub(r"\1@", re.sub(r"([?&]password=)[^&]*", r"\1***", url))
