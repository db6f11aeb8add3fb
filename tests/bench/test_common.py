"""bench/common.py: the AVX2 code paths a benchmark can be asked to take on any x86 CPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"

# A benchmark that imported NumPy before common (as most do): the switch must still hold.
PROBE = f"""
import json, os, sys
sys.path.insert(0, {str(BENCH)!r})
import numpy
import common
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
dispatch = [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]
import numkong
print(json.dumps({{
    "dispatch": sorted(dispatch),
    "numkong": sorted(k for k, v in numkong.get_capabilities().items() if v),
    "machine": common.machine(),
    "disabled": os.environ.get("NPY_DISABLE_CPU_FEATURES"),
}}))
"""


def _probe(avx2: bool) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("SALIENCE_BENCH_AVX2",)}
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if avx2:
        env["SALIENCE_BENCH_AVX2"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def _has_avx512() -> bool:
    try:
        return " avx512f " in Path("/proc/cpuinfo").read_text(encoding="utf-8").replace("\n", " ")
    except OSError:
        return False


@pytest.mark.process
def test_without_the_variable_nothing_changes() -> None:
    found = _probe(avx2=False)
    assert found["machine"]["avx2_paths"] is False
    assert found["disabled"] is None


@pytest.mark.process
@pytest.mark.skipif(not _has_avx512(), reason="an AVX2-only CPU takes these paths anyway")
def test_the_variable_switches_off_numpys_and_numkongs_avx512_kernels() -> None:
    found = _probe(avx2=True)
    assert found["machine"]["avx2_paths"] is True
    assert "X86_V3" in found["dispatch"]
    assert not {"X86_V4", "AVX512_ICL"} & set(found["dispatch"])
    kernels = set(found["numkong"])
    assert "haswell" in kernels
    assert not kernels & {"skylake", "icelake", "genoa", "sapphire"}
