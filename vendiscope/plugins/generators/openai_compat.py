"""The ``openai`` generator: any OpenAI-compatible ``/v1/chat/completions`` server.

vLLM, llama.cpp's server, Ollama, TGI, ``transformers serve`` and hosted APIs all speak it.
Requests go out ``concurrency`` at a time over the standard library's ``http.client`` (no new
dependency), each with a timeout; HTTP 429, 5xx, resets and timeouts are retried with
exponential backoff (honouring ``Retry-After``). A prompt whose request still fails, or whose
reply cannot be read, gets a :class:`~vendiscope.api.Generation` with ``error`` set; a problem
that stops every request (nothing listens at the URL, the model is unknown to the server, the
API key is refused) raises :class:`~vendiscope.api.PluginError`.

The API key is read from the environment variable named by ``api_key_env`` when a request is
sent and goes only into its ``Authorization`` header: never into ``model_id``, ``describe()``,
an error message or a log.
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from vendiscope.api import Generation, Generator, PluginError, Range
from vendiscope.plugins.generators import _http
from vendiscope.plugins.generators._common import check_prompts, derive_seed

if TYPE_CHECKING:
    from vendiscope.api import CancelToken, Message, Progress

_POLL = 0.1  # seconds between cancellation checks while requests run


class OpenAIGenerator(Generator):
    """Completes chat prompts on an OpenAI-compatible server, several requests at a time.

    Parameters
    ----------
    base_url
        The server's address: ``http://127.0.0.1:8000`` or ``http://127.0.0.1:8000/v1`` (both
        mean the same; ``/v1`` is added when the path has no version).
    model
        The model name the server knows (``GET /v1/models`` lists them); ``""`` sends none,
        for servers that serve one model.
    api_key_env
        The environment variable holding the API key, read when a request is sent (sent as
        ``Authorization: Bearer ...``; no variable, no header). The key itself is never a
        parameter, so it is never stored with a run.
    concurrency
        Requests in flight at once.
    timeout
        Seconds to wait for a connection or for the server's reply to each request.
    max_retries
        Retries of a request after HTTP 429, 5xx, a reset or a timeout.
    temperature, top_p
        Sampling settings sent with each request.
    max_new_tokens
        The most tokens per completion (sent as ``max_tokens``); a completion cut there has
        finish reason ``"length"``.
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000/v1",
        model: str = "",
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: Annotated[int, Range(1, 256)] = 4,
        timeout: Annotated[float, Range(gt=0.0)] = 60.0,
        max_retries: Annotated[int, Range(0, 20)] = 3,
        temperature: Annotated[float, Range(0.0, 2.0)] = 0.8,
        top_p: Annotated[float, Range(gt=0.0, le=1.0)] = 0.95,
        max_new_tokens: Annotated[int, Range(1, 1_000_000)] = 256,
    ) -> None:
        self.base_url = base_url
        self.model = model
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.timeout = timeout
        self.max_retries = max_retries
        self.temperature = temperature
        self.top_p = top_p
        self.max_new_tokens = max_new_tokens

    # ------------------------------------------------------------------ identity
    def _base(self) -> str:
        return _http.normalise_base(self.base_url)

    def _shown_base(self) -> str:
        try:
            return _http.display_url(self._base())
        except ValueError:
            return _http.display_url(str(self.base_url))

    @property
    def model_id(self) -> str:
        return (
            f"openai model={self.model or '(server default)'} base_url={self._shown_base()} "
            f"temperature={float(self.temperature):g} top_p={float(self.top_p):g} "
            f"max_new_tokens={int(self.max_new_tokens)}"
        )

    def describe(self) -> dict[str, Any]:
        """Server, model and settings (the name of the key's variable, never the key)."""
        return {
            "base_url": self._shown_base(),
            "model": self.model,
            "temperature": float(self.temperature),
            "top_p": float(self.top_p),
            "max_new_tokens": int(self.max_new_tokens),
            "concurrency": int(self.concurrency),
            "timeout": float(self.timeout),
            "max_retries": int(self.max_retries),
            "api_key_env": self.api_key_env,
            "api_key_set": bool(self._key()),
        }

    # ------------------------------------------------------------------ requests
    def _key(self) -> str:
        return os.environ.get(self.api_key_env, "") if self.api_key_env else ""

    def _headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _redact(self, text: str, key: str) -> str:
        return text.replace(key, "***") if key and len(key) >= 4 else text

    def _unreachable(self, base: str, reason: str) -> PluginError:
        return PluginError(
            f"cannot reach the generation server at {_http.display_url(base)} ({reason})"
        )

    def _refused(self, base: str, reply: _http.Reply, key: str) -> PluginError:
        detail = self._redact(reply.detail(), key)
        if key:
            advice = f"check the key in the environment variable {self.api_key_env}"
        else:
            advice = (
                f"no key was sent: set the environment variable {self.api_key_env}"
                if self.api_key_env
                else "no key was sent: set api_key_env to the variable holding one"
            )
        return PluginError(
            f"the generation server at {_http.display_url(base)} refused the request "
            f"(HTTP {reply.status}: {detail}); {advice}"
        )

    def _served(self, base: str, key: str) -> list[str] | None:
        """The model ids ``GET /models`` lists, or ``None`` when the server does not say."""
        try:
            reply = _http.request(
                "GET", f"{base}/models", headers=self._headers(key), timeout=float(self.timeout)
            )
        except (_http.Unreachable, _http.Transient):
            return None
        return self._served_from(reply) if reply.status == 200 else None

    def _serves(self, served: list[str]) -> bool:
        return self.model in served or f"{self.model}:latest" in served

    def _unknown_model(self, base: str, served: list[str]) -> PluginError:
        listed = ", ".join(served[:20]) + (
            f" and {len(served) - 20} more" if len(served) > 20 else ""
        )
        return PluginError(
            f"the generation server at {_http.display_url(base)} does not serve the model "
            f"'{self.model}' (it serves: {listed or 'no models'})"
        )

    def check(self) -> str:
        """``GET /models``: reachable, the key accepted, the model listed; one line about it."""
        base, key = self._base(), self._key()
        try:
            reply = _http.request(
                "GET", f"{base}/models", headers=self._headers(key), timeout=float(self.timeout)
            )
        except (_http.Unreachable, _http.Transient) as exc:
            raise self._unreachable(base, str(exc)) from None
        if reply.status in (401, 403):
            raise self._refused(base, reply, key)
        shown = _http.display_url(base)
        if reply.status != 200:
            return f"{shown} is reachable; it does not list its models (HTTP {reply.status})"
        served = self._served_from(reply)
        if served is None:
            return f"{shown} is reachable; its model list could not be read"
        if self.model and served and not self._serves(served):
            raise self._unknown_model(base, served)
        if self.model:
            return f"{shown} serves '{self.model}' ({len(served)} model(s) listed)"
        return f"{shown} serves: {', '.join(served[:5]) or 'no models listed'}"

    @staticmethod
    def _served_from(reply: _http.Reply) -> list[str] | None:
        try:
            data = reply.json()
        except ValueError:
            return None
        rows = data.get("data") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            return None
        return [str(r["id"]) for r in rows if isinstance(r, dict) and r.get("id") is not None]

    def _validate(self) -> None:
        if int(self.concurrency) < 1:
            raise ValueError(f"concurrency must be at least 1, not {self.concurrency}")
        if float(self.timeout) <= 0:
            raise ValueError(f"timeout must be positive, not {self.timeout}")
        if int(self.max_retries) < 0:
            raise ValueError(f"max_retries must be 0 or more, not {self.max_retries}")
        if int(self.max_new_tokens) < 1:
            raise ValueError(f"max_new_tokens must be at least 1, not {self.max_new_tokens}")

    def generate(
        self,
        prompts: Sequence[Sequence[Message]],
        *,
        seed: int,
        progress: Progress,
        cancel: CancelToken,
    ) -> list[Generation]:
        """One request per prompt, ``concurrency`` at a time; prompt ``i`` is sent a seed
        derived from ``seed`` and ``i``."""
        check_prompts(prompts)
        self._validate()
        base = self._base()
        cancel.raise_if_cancelled()
        if not prompts:
            return []
        key = self._key()
        stop = threading.Event()
        call = _Call(self, base, key, stop)
        total = len(prompts)
        results: list[Generation | None] = [None] * total
        progress.start("Generating", total=total, unit="prompts")
        workers = max(1, min(int(self.concurrency), total))
        executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="vendiscope-generate"
        )
        try:
            futures = {
                executor.submit(call.one, messages, derive_seed(seed, i)): i
                for i, messages in enumerate(prompts)
            }
            pending = set(futures)
            done = 0
            while pending:
                if cancel.cancelled:
                    stop.set()
                    cancel.raise_if_cancelled()
                finished, pending = concurrent.futures.wait(
                    pending, timeout=_POLL, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for future in finished:
                    results[futures[future]] = future.result()  # a PluginError stops the run
                    done += 1
                if finished:
                    progress.update(done, total)
        finally:
            stop.set()
            executor.shutdown(wait=False, cancel_futures=True)
        progress.finish()
        return [r if r is not None else Generation(None, error="not sent") for r in results]


class _Call:
    """The requests of one ``generate`` call (shared by its worker threads)."""

    def __init__(self, owner: OpenAIGenerator, base: str, key: str, stop: threading.Event):
        self.owner = owner
        self.base = base
        self.key = key
        self.stop = stop
        self._lock = threading.Lock()
        self._served: list[str] | None = None
        self._served_known = False

    def served(self) -> list[str] | None:
        with self._lock:
            if not self._served_known:
                self._served = self.owner._served(self.base, self.key)
                self._served_known = True
            return self._served

    def one(self, messages: Sequence[Message], seed: int) -> Generation:
        owner = self.owner
        if self.stop.is_set():
            return Generation(None, error="not sent: the run stopped")
        body: dict[str, Any] = {
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "temperature": float(owner.temperature),
            "top_p": float(owner.top_p),
            "max_tokens": int(owner.max_new_tokens),
            "seed": seed,
            "stream": False,
        }
        if owner.model:
            body["model"] = owner.model
        url = f"{self.base}/chat/completions"
        headers = owner._headers(self.key)

        def send() -> _http.Reply:
            return _http.request(
                "POST", url, body=body, headers=headers, timeout=float(owner.timeout)
            )

        try:
            outcome = _http.with_retries(send, max_retries=int(owner.max_retries), stop=self.stop)
        except _http.Unreachable as exc:
            self.stop.set()
            raise owner._unreachable(self.base, str(exc)) from None
        if outcome.failure is not None:
            return Generation(None, error=owner._redact(outcome.failure, self.key))
        reply = outcome.reply
        assert reply is not None
        if reply.status in (401, 403):
            self.stop.set()
            raise owner._refused(self.base, reply, self.key)
        if not 200 <= reply.status < 300:
            return self._http_error(reply)
        return self._parse(reply)

    def _http_error(self, reply: _http.Reply) -> Generation:
        owner = self.owner
        detail = owner._redact(reply.detail(), self.key)
        mentions_model = "model" in detail.lower() or bool(owner.model and owner.model in detail)
        if reply.status == 404 or (reply.status in (400, 422) and mentions_model):
            served = self.served()
            if owner.model and served is not None and not owner._serves(served):
                self.stop.set()
                raise owner._unknown_model(self.base, served)
            if reply.status == 404 and mentions_model and owner.model:
                self.stop.set()
                raise PluginError(
                    f"the generation server at {_http.display_url(self.base)} does not know "
                    f"the model '{owner.model}' (HTTP 404: {detail})"
                )
            if reply.status == 404:
                self.stop.set()
                raise PluginError(
                    f"the generation server at {_http.display_url(self.base)} has no "
                    f"chat completions endpoint (HTTP 404: {detail}); check base_url"
                )
        return Generation(None, error=f"HTTP {reply.status}: {detail}")

    def _parse(self, reply: _http.Reply) -> Generation:
        try:
            data = reply.json()
        except ValueError as exc:
            return Generation(None, error=f"unreadable reply: {exc}")
        if not isinstance(data, dict):
            return Generation(None, error="unreadable reply: not a JSON object")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            return Generation(None, error="the server returned no choices")
        choice = choices[0] if isinstance(choices[0], dict) else {}
        message = choice.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        finish = choice.get("finish_reason")
        finish = finish if isinstance(finish, str) else None
        if not isinstance(content, str):
            return Generation(
                None,
                finish,
                error=f"the reply has no message content (finish reason {finish or 'unknown'})",
            )
        try:
            content.encode("utf-8")
        except UnicodeEncodeError:
            return Generation(
                None, finish, error="the reply's content is not valid Unicode (a lone surrogate)"
            )
        usage = data.get("usage")
        tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
        count = tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else 0
        return Generation(content.strip(), finish, tokens=max(count, 0))
