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
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from salience.embeddings.arrays import Matrix, normalise
from salience.errors import ConfigError

MODEL_DIR = Path(__file__).resolve().parent / "minilm"


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, int8, on onnxruntime's CPU provider."""

    optimization = "EXTENDED"  # onnxruntime's graph optimisation level (see _new_session)

    def __init__(self, model_dir: Path = MODEL_DIR, workers: int | None = None) -> None:
        self._dir = model_dir
        self._workers = max(1, workers or min(4, os.cpu_count() or 1))
        self._lock = threading.Lock()
        self._sessions: list[Any] = []
        self._model = b""  # the checked model file, once loaded
        self._tokenizer: Any = None
        self._pool: ThreadPoolExecutor | None = None
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

    def _verified(self, filename: str, data: bytes) -> bytes:
        if hashlib.sha256(data).hexdigest() != self._manifest["sha256"][filename]:
            raise ConfigError(
                f"{self._dir / filename} does not match its sha256 in manifest.json; "
                "reinstall salience or rebuild it with scripts/build_embedder.py"
            )
        return data

    def _load(self) -> None:
        """The tokenizer and the first session (call under ``self._lock``).

        Start-up is most of a one-shot ``salience recall``: the model's sha256 (~40 ms) and
        the tokenizer (~30 ms) are done on a helper thread while onnxruntime builds the
        session (it does not hold the GIL meanwhile, and hashlib releases it; measured). The
        session is kept only if the model's digest matches: a damaged file never embeds.
        """
        model = (self._dir / "model.onnx").read_bytes()
        side: dict[str, Any] = {}

        def check() -> None:
            try:
                self._verified("model.onnx", model)
                side["tokenizer"] = self._new_tokenizer()
            except BaseException as exc:  # re-raised below, on the caller's thread
                side["error"] = exc

        helper = threading.Thread(target=check, name="minilm-check")
        helper.start()
        try:
            session = self._new_session(model)
        except Exception as exc:
            helper.join()
            if "error" in side:  # a damaged model: say so, not what onnxruntime made of it
                raise side["error"] from None
            raise ConfigError(f"the bundled embedder could not be loaded: {exc}") from None
        helper.join()
        if "error" in side:
            raise side["error"]
        self._model = model
        self._tokenizer = side["tokenizer"]
        self._sessions.append(session)

    def _new_tokenizer(self) -> Any:
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise ConfigError(
                f"the minilm embedder needs tokenizers ({exc}); run: pip install salience"
            ) from None
        text = self._verified("tokenizer.json", (self._dir / "tokenizer.json").read_bytes())
        tokenizer = Tokenizer.from_str(text.decode("utf-8"))
        tokenizer.enable_truncation(int(self._manifest["max_tokens"]))
        tokenizer.no_padding()
        return tokenizer

    def _new_session(self, model: bytes) -> Any:
        """An inference session on one thread (see :meth:`_session`)."""
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise ConfigError(
                f"the minilm embedder needs onnxruntime ({exc}); run: pip install salience"
            ) from None
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # The extended level makes every fusion this graph can use; "all" adds only layout
        # changes for convolutions (none here) and takes ~13 ms longer to build the session.
        # The vectors are identical (tested).
        levels = ort.GraphOptimizationLevel
        options.graph_optimization_level = getattr(levels, f"ORT_ENABLE_{self.optimization}")
        return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

    def _session(self, index: int) -> Any:
        """The ``index``-th inference session, made on first use (under ``self._lock``).

        Each session runs on one thread and each text runs alone: a single query is not
        faster on two threads (measured), and texts of a batch are spread over the sessions
        instead, which keeps each text's vector independent of the others in its batch.
        """
        if not self._sessions:
            self._load()
        while len(self._sessions) <= index:
            self._sessions.append(self._new_session(self._model))
        return self._sessions[index]

    def embed(self, texts: Sequence[str]) -> Matrix:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return out
        with self._lock:
            workers = min(self._workers, len(texts))
            sessions = [self._session(i) for i in range(workers)]
            encoded = self._tokenizer.encode_batch(list(texts))
            if workers > 1 and self._pool is None:
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="minilm")
        if workers == 1:
            _run(sessions[0], encoded, range(len(texts)), out)
        else:
            # One text per run, on purpose: int8 dynamic quantization scales activations over
            # the whole input tensor, so a batched run would make a text's vector depend on
            # its neighbours (and padding). The sessions share the texts instead (onnxruntime
            # releases the GIL while it runs): each row of ``out`` is written by one of them.
            assert self._pool is not None
            parts = [
                self._pool.submit(_run, session, encoded, range(i, len(texts), workers), out)
                for i, session in enumerate(sessions)
            ]
            for part in parts:
                part.result()
        return normalise(out)


@cache
def shared() -> MiniLMEmbedder:
    """The process's one bundled MiniLM: the default embedder of every engine and the second
    reading of the instruction detector share its sessions (the model is loaded once)."""
    return MiniLMEmbedder()


def _run(session: Any, encoded: Sequence[Any], rows: range, out: Matrix) -> None:
    for row in rows:
        ids = np.array([encoded[row].ids], dtype=np.int64)
        mask = np.array([encoded[row].attention_mask], dtype=np.int64)
        (pooled,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
        out[row] = pooled[0]
