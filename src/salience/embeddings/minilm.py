"""The bundled default embedder: all-MiniLM-L6-v2 as an int8 ONNX graph (384 dimensions).

The model file ships inside the package (built by ``scripts/build_embedder.py``) and is checked
against the sha256 in its manifest before it is loaded. onnxruntime and tokenizers are imported
on first use, so commands that never embed do not pay for them.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from salience.embeddings.arrays import Matrix, normalise
from salience.errors import ConfigError

MODEL_DIR = Path(__file__).resolve().parent / "minilm"


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, int8, on onnxruntime's CPU provider."""

    def __init__(self, model_dir: Path = MODEL_DIR, threads: int | None = None) -> None:
        self._dir = model_dir
        self._threads = threads
        self._lock = threading.Lock()
        manifest_path = model_dir / "manifest.json"
        try:
            self._manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"the bundled embedder is missing or damaged ({manifest_path}: {exc}); "
                "reinstall salience or rebuild it with scripts/build_embedder.py"
            ) from None

    @property
    def name(self) -> str:
        return "minilm"

    @property
    def dimensions(self) -> int:
        return int(self._manifest["dimensions"])

    @property
    def identity(self) -> str:
        digest = self._manifest["sha256"]["model.onnx"][:12]
        return f"minilm:{self._manifest['name']}:{self.dimensions}:{digest}"

    def _checked(self, filename: str) -> bytes:
        data = (self._dir / filename).read_bytes()
        if hashlib.sha256(data).hexdigest() != self._manifest["sha256"][filename]:
            raise ConfigError(
                f"{self._dir / filename} does not match its sha256 in manifest.json; "
                "reinstall salience or rebuild it with scripts/build_embedder.py"
            )
        return data

    @cached_property
    def _runtime(self) -> tuple[Any, Any]:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - both are core dependencies
            raise ConfigError(
                f"the minilm embedder needs onnxruntime and tokenizers ({exc}); "
                "run: pip install salience"
            ) from None
        tokenizer = Tokenizer.from_str(self._checked("tokenizer.json").decode("utf-8"))
        tokenizer.enable_truncation(int(self._manifest["max_tokens"]))
        tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads or min(4, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # Spinning worker threads would keep both cores busy after each run and slow down
        # the vector search that follows a query embedding (measured 10x on a 10k matvec).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(
            self._checked("model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        return tokenizer, session

    def embed(self, texts: Sequence[str]) -> Matrix:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return out
        with self._lock:
            tokenizer, session = self._runtime
            # One text per run, on purpose: int8 dynamic quantization scales activations over
            # the whole input tensor, so a batch would make a text's vector depend on its
            # neighbours (and padding). Measured: no slower than batches of 32 on 2 cores.
            for row, encoded in enumerate(tokenizer.encode_batch(list(texts))):
                ids = np.array([encoded.ids], dtype=np.int64)
                mask = np.array([encoded.attention_mask], dtype=np.int64)
                (pooled,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
                out[row] = pooled[0]
        return normalise(out)
