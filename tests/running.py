"""Running a command as a test's user does: its output, or a failure showing what it said."""

from __future__ import annotations

import subprocess
from pathlib import Path


def run(
    *command: str | Path,
    env: dict[str, str],
    cwd: Path,
    stdin: str = "",
    timeout: float = 900,
) -> str:
    """Run ``command``; its standard output (the test fails with its last words if it fails)."""
    ran = subprocess.run(
        [str(c) for c in command],
        input=stdin,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    return ran.stdout
