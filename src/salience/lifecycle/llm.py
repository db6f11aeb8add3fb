"""An optional LLM that writes consolidation summaries (eidet: groups of 5+ observations).

Nothing here is needed to run salience: without an LLM (the default) consolidation is
extractive. With one configured (``SALIENCE_LLM=openai|ollama``), :meth:`Summarizer.summarize`
sends the members' texts, which the caller has passed through redaction and the secret
scanner, and returns the model's answer, which the caller passes through the write gates like
any other write. Any failure is an :class:`~salience.errors.LLMError`; the caller falls back
to the extractive summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from salience import net
from salience.config import Config
from salience.errors import ConfigError, LLMError

SYSTEM_PROMPT = (
    "You consolidate an AI agent's memory. Given related observations, write one insight "
    "that states what they establish together, in one to three plain sentences. Use only "
    "facts present in the observations; no preamble, no lists, no speculation."
)
MAX_SUMMARY_CHARS = 2000


class Summarizer(Protocol):
    """Something that turns several related texts into one summary."""

    @property
    def identity(self) -> str:
        """``kind:model``: recorded in the audit log with each summary."""
        ...

    def summarize(self, texts: Sequence[str]) -> str:
        """One summary of ``texts``; :class:`LLMError` if none can be had."""
        ...


def prompt(texts: Sequence[str]) -> str:
    """The user message: the observations, numbered."""
    lines = "\n".join(f"{i}. {text}" for i, text in enumerate(texts, 1))
    return f"Observations:\n{lines}\n\nInsight:"


def _answer(text: Any, where: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise LLMError(f"{where} answered with no text")
    return text.strip()[:MAX_SUMMARY_CHARS]


class _ChatLLM:
    kind = ""

    def __init__(self, url: str, model: str, *, timeout: float) -> None:
        self._url = url.rstrip("/")
        self._model = model
        self._timeout = timeout

    @property
    def identity(self) -> str:
        return f"{self.kind}:{self._model}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({net.host(self._url)!r}, {self._model!r})"

    def _messages(self, texts: Sequence[str]) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": prompt(texts)},
        ]


class OpenAIChat(_ChatLLM):
    """``POST {url}/chat/completions`` (an OpenAI-compatible server; url like ``.../v1``)."""

    kind = "openai"

    def __init__(self, url: str, model: str, *, api_key: str = "", timeout: float) -> None:
        super().__init__(url, model, timeout=timeout)
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def summarize(self, texts: Sequence[str]) -> str:
        body = {"model": self._model, "messages": self._messages(texts), "temperature": 0}
        answer = net.post_json(
            f"{self._url}/chat/completions",
            body,
            self._headers,
            error=LLMError,
            timeout=self._timeout,
        )
        try:
            text = answer["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMError(f"{net.host(self._url)}: no choices[0].message in the answer") from None
        return _answer(text, net.host(self._url))


class OllamaChat(_ChatLLM):
    """``POST {url}/api/chat`` with ``stream: false``."""

    kind = "ollama"

    def summarize(self, texts: Sequence[str]) -> str:
        body = {
            "model": self._model,
            "messages": self._messages(texts),
            "stream": False,
            "options": {"temperature": 0},
        }
        answer = net.post_json(
            f"{self._url}/api/chat", body, {}, error=LLMError, timeout=self._timeout
        )
        try:
            text = answer["message"]["content"]
        except (KeyError, TypeError):
            raise LLMError(f"{net.host(self._url)}: no message in the answer") from None
        return _answer(text, net.host(self._url))


def load_llm(config: Config) -> Summarizer | None:
    """The configured LLM, or None (``SALIENCE_LLM=none``, the default)."""
    if config.llm == "none":
        return None
    if not config.llm_model:
        raise ConfigError(f"llm {config.llm!r} needs llm_model (SALIENCE_LLM_MODEL)")
    if config.llm == "openai":
        return OpenAIChat(
            config.llm_url or "https://api.openai.com/v1",
            config.llm_model,
            api_key=config.llm_api_key,
            timeout=config.llm_timeout_s,
        )
    return OllamaChat(
        config.llm_url or "http://localhost:11434", config.llm_model, timeout=config.llm_timeout_s
    )
