"""The wire: the one JSON shape of every value a face returns.

:mod:`.values` turns the library's values into JSON-ready data (no pydantic: the CLI imports
it), :mod:`.models` describes the same shapes as pydantic models (the HTTP API's OpenAPI
schema, the MCP tools' output schemas), and :mod:`.decode` turns them back into the
library's values (the Python client). The CLI's ``--json``, the HTTP API, MCP's structured
output and the client all go through here, so a value has one shape on every face.
Timestamps are :func:`salience.clock.format_time`'s: UTC, microseconds, ``Z``.
"""
