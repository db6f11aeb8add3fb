import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from salience.lazy import lazy_module, once


def test_a_lazy_module_runs_only_when_first_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "lazy_probe.py").write_text(
        "import builtins\nbuiltins.PROBE_RAN = True\nVALUE = 42\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazy_probe", raising=False)
    import builtins

    monkeypatch.setattr(builtins, "PROBE_RAN", False, raising=False)
    module = lazy_module("lazy_probe")
    assert builtins.PROBE_RAN is False  # type: ignore[attr-defined]
    assert module.VALUE == 42
    assert builtins.PROBE_RAN is True  # type: ignore[attr-defined]
    assert lazy_module("lazy_probe") is module
    monkeypatch.delitem(sys.modules, "lazy_probe")


def test_a_missing_module_is_named() -> None:
    with pytest.raises(ModuleNotFoundError, match="no_such_module_here"):
        lazy_module("no_such_module_here")


def test_importing_the_package_and_the_cli_leaves_the_rest_for_later() -> None:
    """Every CLI call and hook imports salience and its CLI: NumPy (~150 ms), onnxruntime,
    the engine and each command's module load when first needed, not before."""
    later = ["numpy._core", "onnxruntime.capi", "salience.engine.memory", "salience.cli.memories"]
    code = f"import sys, salience.cli; print(sorted(set({later!r}) & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"  # (a lazy module is listed, its insides are not)


def test_a_value_read_once_is_worked_out_at_its_first_read_and_kept() -> None:
    calls: list[int] = []

    @dataclass(frozen=True)
    class Box:
        size: int

        @once
        def doubled(self) -> int:
            """Twice the size."""
            calls.append(self.size)
            return self.size * 2

    box, other = Box(3), Box(5)
    assert calls == []  # (nothing is worked out before it is read)
    assert box.doubled == box.doubled == 6
    assert other.doubled == 10
    assert calls == [3, 5]  # (once per object, each its own)
    assert isinstance(Box.doubled, once)
    assert Box.doubled.__doc__ == "Twice the size."
