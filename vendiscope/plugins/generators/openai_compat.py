"""The ``openai`` generator: any OpenAI-compatible ``/v1/chat/completions`` server.

vLLM, llama.cpp's server, Ollama, TGI, ``transformers serve`` and hosted APIs all speak it.
Requests go out over the standard library's ``http.client`` (no new dependency).

**Sized to the server.** Unless ``concurrency`` and ``timeout`` are given, the first call
measures the server with its own first prompts: one request alone (its seconds and tokens),
then two at once (does the server serve them side by side, or one after the other?). It then
sends one request at a time to a server that queues them (llama.cpp's server, ``transformers
serve`` on a CPU) and four to one that batches them, each with a timeout that scales with
``max_new_tokens`` at the measured speed (:attr:`OpenAIGenerator.measured_`). A timeout bounds
the whole reply, a trickle or an endless stream included, and a reply is capped in size
(:data:`~vendiscope.plugins.generators._http.MAX_REPLY_BYTES`). HTTP 429, 5xx and resets are
retried with exponential backoff (honouring ``Retry-After``); a timed-out request never is,
since the server may still be working on it.

**Structured output.** Given the example's JSON schema (``generate(..., schema=...)``, as the
synthesis job does), the request asks for it with ``response_format`` (``json_schema``:
vLLM, llama.cpp's server, Ollama, OpenAI). A server that refuses the field, or accepts it and
does not follow it (``transformers serve`` ignores it), is then asked field by field: one
plain-text request per key of the schema, assembled into the object here, so every reply is
a well-formed example however small the model. :attr:`OpenAIGenerator.structured_output_`
says which was used and why.

A prompt whose request still fails, or whose reply cannot be read, gets a
:class:`~vendiscope.api.Generation` with ``error`` set; a problem that stops every request
(nothing listens at the URL, the model is unknown to the server, the API key is refused)
raises :class:`~vendiscope.api.PluginError`.

The API key is read from the environment variable named by ``api_key_env`` when a request is
sent and goes only into its ``Authorization`` header: never into ``model_id``, ``describe()``,
an error message or a log.
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

from vendiscope.api import Generation, Generator, PluginError, Range
from vendiscope.plugins.generators import _http
from vendiscope.plugins.generators._common import (
    check_prompts,
    check_schema,
    derive_seed,
)
from vendiscope.plugins.generators._structured import _Call

if TYPE_CHECKING:
    from vendiscope.api import CancelToken, Message, Progress

_POLL = 0.1  # seconds between cancellation checks while requests run
PROBE_TIMEOUT = 10.0
"""Seconds :meth:`OpenAIGenerator.check` waits for ``GET /models``."""
FIRST_TIMEOUT_MIN = 120.0
"""The least timeout of the first, measuring request (seconds), before the server's speed is
known: ``max(FIRST_TIMEOUT_MIN, max_new_tokens * 1 s)``."""
TIMEOUT_MIN = 30.0
TIMEOUT_FACTOR = 3.0
"""A measured timeout: ``TIMEOUT_FACTOR`` x the time a full ``max_new_tokens`` reply takes at
the measured speed (at least :data:`TIMEOUT_MIN` s)."""
PARALLEL_CONCURRENCY = 4
"""Requests in flight for a server that serves several at once."""
PARALLEL_GAIN = 1.5
"""Two requests at once counted as served side by side when together they make tokens at
least this much faster than one alone."""
STRUCTURED = ("auto", "json_schema", "fields", "off")


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
        Requests in flight at once; ``None`` (the default) measures the server: 1 for one
        that serves one request at a time, 4 for one that batches.
    timeout
        Seconds one request may take, the whole reply included; ``None`` (the default)
        scales it with ``max_new_tokens`` at the server's measured speed.
    max_retries
        Retries of a request after HTTP 429, 5xx or a reset (never after a timeout).
    structured
        ``"auto"``: ask for the example's JSON schema (``response_format``) and, where the
        server refuses or ignores it, ask field by field; ``"json_schema"``: the schema or
        an error; ``"fields"``: field by field always; ``"off"``: the prompt alone.
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
        concurrency: Annotated[int | None, Range(1, 256)] = None,
        timeout: Annotated[float | None, Range(gt=0.0)] = None,
        max_retries: Annotated[int, Range(0, 20)] = 3,
        temperature: Annotated[float, Range(0.0, 2.0)] = 0.8,
        top_p: Annotated[float, Range(gt=0.0, le=1.0)] = 0.95,
        max_new_tokens: Annotated[int, Range(1, 1_000_000)] = 256,
        structured: Literal["auto", "json_schema", "fields", "off"] = "auto",
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
        self.structured = structured

    @property
    def measured_(self) -> dict[str, Any]:
        """What the first call measured: seconds and tokens of one request, whether two
        were served side by side, and the concurrency and timeout chosen (empty before)."""
        return dict(self.__dict__.get("_measured") or {})

    @property
    def structured_output_(self) -> str | None:
        """How the last call asked for structure (``None``: no schema was asked for)."""
        return self.__dict__.get("_structured_note")

    def _concurrency(self) -> int:
        if self.concurrency is not None:
            return int(self.concurrency)
        return int(self.measured_.get("concurrency", 1))

    def _timeout(self) -> float:
        if self.timeout is not None:
            return float(self.timeout)
        measured = self.measured_.get("timeout")
        if measured is not None:
            return float(measured)
        return max(FIRST_TIMEOUT_MIN, float(self.max_new_tokens))

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
            "concurrency": None if self.concurrency is None else int(self.concurrency),
            "timeout": None if self.timeout is None else float(self.timeout),
            "max_retries": int(self.max_retries),
            "structured": self.structured,
            "structured_output": self.structured_output_,
            "measured": self.measured_,
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
                "GET", f"{base}/models", headers=self._headers(key), timeout=PROBE_TIMEOUT
            )
        except (_http.Unreachable, _http.Transient, _http.TooLarge):
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
        """``GET /models`` within :data:`PROBE_TIMEOUT` s: an OpenAI-compatible API answers
        there, the key is accepted, the model is listed; one line about it.

        Fails fast and says why: nothing listening, a server that accepts the connection but
        does not answer (busy), no such API at the path (HTTP 404: a wrong ``base_url``), a
        list that cannot be read, a model not listed. A real generation is
        ``vendiscope synthesize --check`` (:func:`vendiscope.core.synthesis.probe.probe`).
        """
        base, key = self._base(), self._key()
        shown = _http.display_url(base)
        try:
            reply = _http.request(
                "GET", f"{base}/models", headers=self._headers(key), timeout=PROBE_TIMEOUT
            )
        except _http.TimedOut as exc:
            if not exc.connected:
                raise self._unreachable(base, str(exc)) from None
            raise PluginError(
                f"the generation server at {shown} accepted the connection but did not "
                f"answer GET /models within {PROBE_TIMEOUT:g} s: it is busy (still working on "
                "earlier requests?) or not an OpenAI-compatible server"
            ) from None
        except (_http.Unreachable, _http.Transient, _http.TooLarge) as exc:
            raise self._unreachable(base, str(exc)) from None
        if reply.status in (401, 403):
            raise self._refused(base, reply, key)
        if reply.status != 200:
            raise PluginError(
                f"no OpenAI-compatible API at {shown}: GET {shown}/models answered HTTP "
                f"{reply.status} ({reply.detail()}); check base_url (it usually ends in /v1)"
            )
        served = self._served_from(reply)
        if served is None:
            raise PluginError(
                f"{shown}/models did not answer with a model list (not an OpenAI-compatible "
                "API?); check base_url"
            )
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
        if self.concurrency is not None and int(self.concurrency) < 1:
            raise ValueError(f"concurrency must be at least 1, not {self.concurrency}")
        if self.timeout is not None and float(self.timeout) <= 0:
            raise ValueError(f"timeout must be positive, not {self.timeout}")
        if self.structured not in STRUCTURED:
            raise ValueError(
                f"structured must be one of {', '.join(STRUCTURED)}, not {self.structured!r}"
            )
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
        schema: dict[str, Any] | None = None,
    ) -> list[Generation]:
        """One example per prompt, in order; prompt ``i`` is sent a seed derived from ``seed``
        and ``i``. ``schema`` (a JSON schema of an object with string properties) asks for
        structured output (see the module docstring)."""
        check_prompts(prompts)
        self._validate()
        if schema is not None:
            check_schema(schema)
        base = self._base()
        cancel.raise_if_cancelled()
        if not prompts:
            return []
        key = self._key()
        stop = threading.Event()
        call = _Call(self, base, key, stop, schema)
        total = len(prompts)
        results: list[Generation | None] = [None] * total
        progress.start("Generating", total=total, unit="examples")
        seeds = [derive_seed(seed, i) for i in range(total)]
        executors: list[concurrent.futures.ThreadPoolExecutor] = []
        done = 0

        def send(indexes: list[int], workers: int) -> None:
            """Send these prompts, ``workers`` at a time; wait for them all (or a cancel)."""
            nonlocal done
            executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=max(1, workers), thread_name_prefix="vendiscope-generate"
            )
            executors.append(executor)
            futures = {executor.submit(call.one, prompts[i], seeds[i]): i for i in indexes}
            pending = set(futures)
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

        try:
            call.settle()
            first = 0
            if (self.concurrency is None or self.timeout is None) and not self.measured_:
                first = self._measure(send, results, total)
            if first < total:
                send(list(range(first, total)), min(self._concurrency(), total - first))
        finally:
            stop.set()
            for executor in executors:
                executor.shutdown(wait=False, cancel_futures=True)
        progress.finish()
        self.__dict__["_structured_note"] = call.note()
        return [r if r is not None else Generation(None, error="not sent") for r in results]

    def _measure(self, send: Any, results: list[Generation | None], total: int) -> int:
        """Time the first prompt alone, then (with 3 or more, when ``concurrency`` is not
        given) the next two at once; choose the concurrency and timeout (:attr:`measured_`).
        Returns how many prompts were done."""
        started = time.monotonic()
        send([0], 1)
        alone = time.monotonic() - started
        first = results[0]
        measured: dict[str, Any] = {"seconds_first": round(alone, 3)}
        if first is None or first.error is not None or first.tokens <= 0:
            measured.update(concurrency=1, timeout=None, note="the first request failed")
            self.__dict__["_measured"] = measured
            return 1
        per_token = alone / first.tokens
        measured.update(tokens_first=first.tokens, seconds_per_token=round(per_token, 4))
        done = 1
        concurrency = 1
        if total >= 3 and self.concurrency is None:
            started = time.monotonic()
            send([1, 2], 2)
            together = time.monotonic() - started
            done = 3
            pair = [results[1], results[2]]
            tokens = sum(g.tokens for g in pair if g is not None and g.error is None)
            if tokens > 0 and together > 0:
                gain = (tokens / together) / (first.tokens / alone)
                measured.update(seconds_two_at_once=round(together, 3), gain=round(gain, 2))
                if gain >= PARALLEL_GAIN:
                    concurrency = PARALLEL_CONCURRENCY
                    per_token = max(per_token, together / max(tokens / 2, 1))
        full = per_token * int(self.max_new_tokens) * (2 if concurrency > 1 else 1)
        measured.update(
            concurrency=concurrency,
            parallel=concurrency > 1,
            timeout=round(max(TIMEOUT_MIN, TIMEOUT_FACTOR * (full + alone)), 1),
        )
        self.__dict__["_measured"] = measured
        return done
