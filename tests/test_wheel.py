"""Installed as users install it: the wheel built from this checkout, installed into a clean
venv outside the checkout (and with pipx), runs ``salience --version``, a remember and a
recall, ``salience mcp`` through the official SDK's handshake, and the session-start hook;
and it carries the model and the web assets. Slow and real: it installs from PyPI."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import zipfile
from pathlib import Path

import pytest

from tests.running import run as _run

pytestmark = [pytest.mark.slow, pytest.mark.real]
ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    env = dict(os.environ)
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, ROOT, env=env, cwd=out)
    [built] = sorted(out.glob("salience-*.whl"))
    return built


def test_the_wheel_carries_the_model_and_the_web_assets(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "salience/embeddings/minilm/model.onnx",
        "salience/embeddings/minilm/tokenizer.json",
        "salience/web/app.js",
        "salience/web/index.html",
        "salience/py.typed",
    ):
        assert needed in names, needed
    assert not any(n.startswith(("tests/", "bench/")) for n in names)


def _user(tmp_path: Path, bin_dir: Path) -> tuple[dict[str, str], Path]:
    """A user with a home of their own, outside the checkout, with ``bin_dir`` on the PATH."""
    home = tmp_path / "user"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "SALIENCE_HOME": str(home / "memory"),
    }
    return env, home


def _works(salience: Path, env: dict[str, str], cwd: Path) -> None:
    """What a user does first: version, remember, recall, the MCP handshake, the hook."""
    assert _run(salience, "--version", env=env, cwd=cwd).startswith("salience")
    _run(salience, "remember", "Deploys go through ops/deploy.sh on Tuesdays", env=env, cwd=cwd)
    found = _run(salience, "recall", "how do we deploy", "--json", env=env, cwd=cwd)
    assert "ops/deploy.sh" in found
    from mcp import Client, StdioServerParameters

    async def handshake() -> str:
        params = StdioServerParameters(command=str(salience), args=["mcp"], env=env, cwd=cwd)
        async with Client(params) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"remember", "recall"} <= tools
            answer = await client.call_tool("recall", {"query": "deploy"})
            return str(answer.content)

    assert "ops/deploy.sh" in asyncio.run(asyncio.wait_for(handshake(), timeout=120))
    hooked = _run(salience, "hook", "session-start", env=env, cwd=cwd, stdin="{}")
    assert "ops/deploy.sh" in json.loads(hooked)["hookSpecificOutput"]["additionalContext"]


def test_the_wheel_installed_in_a_clean_venv_works(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv, env=dict(os.environ), cwd=tmp_path)
    _run(
        venv / "bin" / "python",
        "-m",
        "pip",
        "install",
        "-q",
        wheel,
        env=dict(os.environ),
        cwd=tmp_path,
    )
    env, home = _user(tmp_path, venv / "bin")
    _works(venv / "bin" / "salience", env, home)


def test_the_wheel_installed_with_pipx_works(wheel: Path, tmp_path: Path) -> None:
    tools = tmp_path / "pipx-venv"
    _run(sys.executable, "-m", "venv", tools, env=dict(os.environ), cwd=tmp_path)
    _run(
        tools / "bin" / "python",
        "-m",
        "pip",
        "install",
        "-q",
        "pipx==1.8.0",
        env=dict(os.environ),
        cwd=tmp_path,
    )
    bin_dir = tmp_path / "bin"
    pipx_env = {**os.environ, "PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(bin_dir)}
    _run(tools / "bin" / "pipx", "install", wheel, env=pipx_env, cwd=tmp_path)
    env, home = _user(tmp_path, bin_dir)
    _works(bin_dir / "salience", env, home)
