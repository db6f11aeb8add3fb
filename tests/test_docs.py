"""docs/ says only what is true: its generated tables match the code, its links resolve."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))


def test_every_generated_table_is_current() -> None:
    checked = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_docs.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr


def test_the_generator_notices_a_stale_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_docs
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    text = "<!-- generated: settings -->\n| stale |\n<!-- end generated -->\n"
    fresh = gen_docs.render(text, {})
    assert fresh != text
    assert "`SALIENCE_HOME`" in fresh


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_link_between_docs_resolves(path: Path) -> None:
    for target in re.findall(r"\]\(([\w./-]+\.md)(?:#[\w-]+)?\)", path.read_text(encoding="utf-8")):
        assert (path.parent / target).is_file(), f"{path.name} links to {target}"
