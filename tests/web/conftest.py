"""A real ``salience serve`` on a seeded store, and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_process import ENV, _salience, serving

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WITH_VECTORS = {**os.environ, "SALIENCE_EMBEDDER": "minilm", "SALIENCE_SIGNAL_GATE": "0"}
SHOTS = Path(__file__).parent.parent.parent / "bench" / "results" / "screenshots"
XSS = "<img src=x onerror=\"document.title='pwned'\"> rendered as text"


def seed(home: Path, extra: int = 0) -> None:
    """A store with memories of several types, a version chain, an insight derived from
    observations, entities, and one memory whose text is markup."""
    lines = [
        {
            "content": "Deploys go through ops/deploy.sh, never by hand",
            "type": "decision",
            "tags": ["project:api"],
            "project": "api",
        },
        {
            "content": "The staging API listens on port 8080 (src/api/server.py)",
            "type": "observation",
            "tags": ["project:api"],
            "project": "api",
        },
        {
            "content": "Redis runs on port 6379 with REDIS_URL set in .env",
            "type": "observation",
            "tags": ["project:api"],
            "project": "api",
        },
        {
            "content": "The billing service retries failed charges three times",
            "type": "observation",
            "tags": ["project:api"],
            "project": "api",
        },
        {
            "content": "User prefers tabs over spaces in Python files",
            "type": "preference",
            "importance": 0.8,
        },
        {
            "content": "Always run pytest -x before pushing to main",
            "type": "heuristic",
            "importance": 0.7,
        },
        {"content": XSS, "type": "observation"},
    ]
    lines += [
        {"content": f"Filler memory number {n} about the build pipeline stage {n % 7}"}
        for n in range(extra)
    ]
    path = home.parent / "seed.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    # A large store is written by full text only: it is served without an embedder, and
    # embedding ten thousand texts took most of a minute for vectors nobody searched.
    env = WITH_VECTORS if not extra else ENV
    assert _salience("import", str(path), "--home", str(home), env=env).returncode == 0
    assert _salience("consolidate", "--home", str(home), env=env).returncode == 0


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page under the server's own CSP; a console error, an uncaught exception or a CSP
    violation anywhere during the test fails it."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    opened = context.new_page()
    problems: list[str] = []
    opened.on(
        "console",
        lambda message: (
            problems.append(f"console {message.type}: {message.text}")
            if message.type in ("error", "assert")
            else None
        ),
    )
    opened.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
    opened.expected_failures = []  # type: ignore[attr-defined]  # see expect_failure()
    yield opened
    context.close()
    expected = opened.expected_failures  # type: ignore[attr-defined]
    problems = [p for p in problems if not any(f"status of {code} " in p for code in expected)]
    assert problems == [], "\n".join(problems)


def expect_failure(page: Any, status: int) -> None:
    """A response of ``status`` is what this test provokes (a refused write): the browser's
    "Failed to load resource" console error for it does not fail the test."""
    page.expected_failures.append(status)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("web") / "home"
    seed(home)
    with serving(home, env=WITH_VECTORS) as base:
        yield base


def until(page: Any, expression: str, timeout: float = 20.0) -> Any:
    """Wait until ``expression`` is truthy in the page, and return it. (Playwright's
    wait_for_function evaluates a string with eval, which the page's CSP refuses.)"""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        assert time.monotonic() < deadline, f"never true: {expression}"
        time.sleep(0.05)


def shot(page: Any, name: str) -> None:
    """A 1280x800 screenshot for a person to look at (bench/results is not tracked)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
