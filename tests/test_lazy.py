import subprocess
import sys
from pathlib import Path

import pytest

from salience.lazy import lazy_module


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
