"""Each original's documented calls and answers (tests/data/conformance/*.json), run against
salience: its MCP tools (``--tools NAME``) and its HTTP routes, in the order a user of the
original would make them, every answer held to the original's documented shape."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from salience import Config, Memory
from salience.mcp_server import create_mcp_server
from salience.server.app import create_app
from tests.loopback import local_client

DATA = Path(__file__).parent.parent / "data" / "conformance"
KINDS: dict[str, Any] = {
    "<str>": str,
    "<int>": int,
    "<number>": (int, float),
    "<bool>": bool,
    "<list>": list,
    "<dict>": dict,
}


def matches(template: Any, value: Any, where: str = "$") -> None:
    """Assert ``value`` fits ``template`` (see tests/data/conformance/README.md)."""
    if template == "<any>":
        return
    if template == "<null>":
        assert value is None, f"{where}: {value!r} is not null"
    elif isinstance(template, str) and template in KINDS:
        kind = KINDS[template]
        assert isinstance(value, kind), f"{where}: {value!r} is not {template}"
        assert not (kind is int and isinstance(value, bool)), f"{where}: {value!r} is a bool"
    elif isinstance(template, dict):
        assert isinstance(value, dict), f"{where}: {value!r} is not an object"
        for key, inner in template.items():
            assert key in value, f"{where}: no {key!r} in {sorted(value)}"
            matches(inner, value[key], f"{where}.{key}")
    elif isinstance(template, list) and len(template) == 1:
        assert isinstance(value, list), f"{where}: {value!r} is not a list"
        assert value, f"{where}: the list is empty"
        for n, item in enumerate(value):
            matches(template[0], item, f"{where}[{n}]")
    else:
        assert value == template, f"{where}: {value!r} != {template!r}"


def _fill(template: Any, saved: dict[str, str]) -> Any:
    """The template with every ``{name}`` replaced by a saved value (JSON-escaped)."""
    text = json.dumps(template)
    for name, value in saved.items():
        text = text.replace("{" + name + "}", json.dumps(value)[1:-1])
    return json.loads(text)


def _pattern(pattern: str, saved: dict[str, str]) -> str:
    """A regular expression with every ``{name}`` replaced by a saved value, literally."""
    for name, value in saved.items():
        pattern = pattern.replace("{" + name + "}", re.escape(value))
    return pattern


def _dig(value: Any, path: str) -> str:
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return str(value)


def _save(step: dict[str, Any], text: str, data: Any, saved: dict[str, str]) -> None:
    for name, path in step.get("save", {}).items():
        if path.startswith("re:"):
            found = re.search(path[3:], text)
            assert found, f"{path} does not match {text!r}"
            saved[name] = found.group(1)
        else:
            saved[name] = _dig(data, path)


NO_STRUCTURE = object()


def _check(step: dict[str, Any], text: str, saved: dict[str, str], data: Any = NO_STRUCTURE) -> Any:
    """Hold the answer to the step's expectations; ``data``: a tool's structured answer."""
    if "json" in step:
        data = json.loads(text) if data is NO_STRUCTURE else data
        matches(_fill(step["json"], saved), data)
    if "text" in step:
        pattern = _pattern(step["text"], saved)
        assert re.fullmatch(pattern, text), f"{text!r} does not match {pattern!r}"
    return data


def run(system: str, memory: Memory) -> None:
    steps = json.loads((DATA / f"{system}.json").read_text())
    saved: dict[str, str] = {}

    async def main() -> None:
        async with Client(create_mcp_server(memory, tools=system)) as client:
            with local_client(create_app(memory)) as http:
                for n, step in enumerate(steps):
                    try:
                        await _step(step, client, http, saved)
                    except AssertionError as failure:
                        raise AssertionError(
                            f"{system} step {n} ({_name(step)}): {failure}"
                        ) from None

    asyncio.run(main())


def _name(step: dict[str, Any]) -> str:
    return step.get("tool") or f"{step['method']} {step['path']}"


async def _step(step: dict[str, Any], client: Client, http: Any, saved: dict[str, str]) -> None:
    if "tool" in step:
        result = await client.call_tool(step["tool"], _fill(step["args"], saved))
        text = "\n".join(c.text for c in result.content)
        if "error" in step:
            assert result.is_error, f"expected a tool error, got {text!r}"
            pattern = _pattern(step["error"], saved)
            assert re.fullmatch(pattern, text), f"{text!r} does not match {pattern!r}"
            return
        assert not result.is_error, text
        structured: Any = result.structured_content
        if structured is None:
            structured = NO_STRUCTURE  # a text tool: its text is the answer
        elif isinstance(structured, dict) and set(structured) == {"result"}:
            structured = structured["result"]  # (the SDK wraps an answer that is not an object)
        data = _check(step, text, saved, structured)
        _save(step, text, data, saved)
        return
    answer = http.request(
        step["method"],
        _fill({"p": step["path"]}, saved)["p"],
        json=_fill(step["body"], saved) if "body" in step else None,
        headers=step.get("headers"),
    )
    text = answer.text
    assert answer.status_code == step.get("status", 200), f"{answer.status_code}: {text}"
    data = _check(step, text, saved)
    _save(step, text, data, saved)


@pytest.mark.parametrize("system", ["aide", "eidet", "ilab", "talome", "rae"])
def test_the_originals_documented_calls_answer_as_documented(system: str, tmp_path: Path) -> None:
    config = Config(home=tmp_path / "home", signal_gate=False)
    from tests.embedder import WordHashEmbedder

    with Memory.open(config=config, embedder=WordHashEmbedder()) as memory:
        run(system, memory)


def test_the_template_rules_hold() -> None:
    matches({"a": "<int>", "b": ["<str>"]}, {"a": 3, "b": ["x", "y"], "c": None})
    for template, value in (("<int>", True), (["<str>"], []), ({"a": 1}, {}), ("x", "y")):
        with pytest.raises(AssertionError):
            matches(template, value)
