"""Structured output for the ``openai`` generator: one call's requests, their structure mode
(``json_schema``, then ``fields`` when the server refuses or ignores the schema), and reading
a field-by-field reply (:func:`field_value`). :class:`_Call` carries one ``generate`` call's
state; :class:`~vendiscope.plugins.generators.openai_compat.OpenAIGenerator` owns it."""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vendiscope.api import Generation, PluginError
from vendiscope.plugins.generators import _http
from vendiscope.plugins.generators._common import (
    conforms,
    derive_seed,
    find_object,
    schema_keys,
)

if TYPE_CHECKING:
    from vendiscope.api import Message


_SCHEMA_WORDS = ("response_format", "json_schema", "schema", "grammar", "structured")
PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "string", "enum": ["yes"]}},
    "required": ["ok"],
    "additionalProperties": False,
}
"""Asked for once per generator with an unrelated prompt: only a server that enforces the
schema answers ``{"ok": "yes"}`` to "Say hello in one word."."""
FIELD_FIRST = (
    "Do not write JSON. Write only the {key!r} of your new example, as plain text, and "
    "nothing else."
)
FIELD_NEXT = "Now write only the {key!r} of that example, as plain text, and nothing else."


class _Refused(Exception):
    """The server refused ``response_format`` (its reason)."""


class _Call:
    """The requests of one ``generate`` call (shared by its worker threads)."""

    def __init__(
        self,
        owner: Any,  # the OpenAIGenerator (not named: its module imports this one)
        base: str,
        key: str,
        stop: threading.Event,
        schema: dict[str, Any] | None,
    ):
        self.owner = owner
        self.base = base
        self.key = key
        self.stop = stop
        self.schema = schema
        self._lock = threading.Lock()
        self._served: list[str] | None = None
        self._served_known = False
        self._mode, self._why = self._start_mode()

    def _start_mode(self) -> tuple[str, str]:
        owner = self.owner
        if self.schema is None or owner.structured == "off":
            return "plain", ""
        if owner.structured == "fields":
            return "fields", "asked for"
        known = owner.__dict__.get("_fallback")
        if known is not None and owner.structured == "auto":
            return "fields", known
        return "json_schema", ""

    def settle(self) -> None:
        """Before the first structured request: does the server enforce a schema? One short
        request with :data:`PROBE_SCHEMA` tells (once per generator): an answer that is the
        object means yes; a refusal or prose means ask field by field (``auto``)."""
        owner = self.owner
        if self._mode != "json_schema" or "_schema_probed" in owner.__dict__:
            return
        owner.__dict__["_schema_probed"] = True
        ask = [{"role": "user", "content": "Say hello in one word."}]
        saved = self.schema
        self.schema = PROBE_SCHEMA
        try:
            answer = self._complete(ask, 0, structured=True, max_tokens=16)
        except _Refused as exc:
            answer = None
            why = f"the server refused response_format: {exc}"
        finally:
            self.schema = saved
        if answer is not None:
            if answer.error is not None:
                return  # not known: the examples' own replies will tell
            found = find_object(answer.text or "", ["ok"])
            if found is not None and found["ok"] == "yes":
                return
            why = (
                "the server accepted response_format but did not follow the schema (it "
                "ignores the field, as transformers serve does)"
            )
        if owner.structured != "auto":
            self.stop.set()
            raise PluginError(
                f"the generation server at {_http.display_url(self.base)} does not give "
                f"structured output ({why}); use structured=auto or fields"
            )
        self._fall_back(why)

    def note(self) -> str | None:
        """What this call did about structure, in words (for the run's record)."""
        if self.schema is None:
            return None
        if self._mode == "plain":
            return "off: the prompt alone asks for the JSON object"
        if self._mode == "json_schema":
            return "json_schema: the server's structured output (response_format)"
        return f"fields: one plain-text request per key ({self._why})"

    def _fall_back(self, why: str) -> None:
        with self._lock:
            if self._mode == "json_schema":
                self._mode, self._why = "fields", why
                self.owner.__dict__["_fallback"] = why

    def served(self) -> list[str] | None:
        with self._lock:
            if not self._served_known:
                self._served = self.owner._served(self.base, self.key)
                self._served_known = True
            return self._served

    def one(self, messages: Sequence[Message], seed: int) -> Generation:
        if self.stop.is_set():
            return Generation(None, error="not sent: the run stopped")
        spent = 0  # tokens of a structured reply that was not followed (counted, not kept)
        if self._mode == "json_schema":
            assert self.schema is not None
            try:
                generation = self._complete(messages, seed, structured=True)
            except _Refused as exc:
                if self.owner.structured != "auto":
                    self.stop.set()
                    raise PluginError(
                        f"the generation server at {_http.display_url(self.base)} refused "
                        f"structured output (response_format: {exc}); use structured=auto "
                        "or fields"
                    ) from None
                self._fall_back(f"the server refused response_format: {exc}")
            else:
                # constrained output starts with the object, and is the object when complete
                text = generation.text
                unfollowed = text is not None and (
                    not text.lstrip().startswith("{")
                    or (generation.finish_reason == "stop" and not conforms(text, self.schema))
                )
                if not unfollowed or self.owner.structured != "auto":
                    return generation
                spent = generation.tokens
                self._fall_back(
                    "the server accepted response_format but did not follow the schema "
                    "(it ignores the field, as transformers serve does)"
                )
        if self._mode == "fields":
            made = self._fields(messages, seed)
            return dataclasses.replace(made, tokens=made.tokens + spent) if spent else made
        return self._complete(messages, seed)

    def _fields(self, messages: Sequence[Message], seed: int) -> Generation:
        """The example field by field: one plain-text request per key, assembled here."""
        assert self.schema is not None
        conversation = [{"role": m["role"], "content": m["content"]} for m in messages]
        values: dict[str, str] = {}
        tokens = 0
        previous = ""
        for number, key in enumerate(schema_keys(self.schema)):
            if number == 0:
                ask = FIELD_FIRST.format(key=key)
                if conversation[-1]["role"] == "user":
                    conversation[-1] = {
                        "role": "user",
                        "content": f"{conversation[-1]['content']}\n\n{ask}",
                    }
                else:
                    conversation.append({"role": "user", "content": ask})
            else:
                conversation += [
                    {"role": "assistant", "content": values[previous]},
                    {"role": "user", "content": FIELD_NEXT.format(key=key)},
                ]
            part = self._complete(conversation, seed if number == 0 else derive_seed(seed, number))
            tokens += part.tokens
            if part.error is not None or part.text is None:
                error = f"field {key!r}: {part.error or 'no text'}"
                return Generation(None, part.finish_reason, error=error, tokens=tokens)
            value = field_value(part.text, key, cut=part.finish_reason == "length")
            if value is None:  # cut off with nothing whole in it: the parser says "truncated"
                return Generation(part.text, "length", tokens=tokens)
            if not value:
                return Generation("", "stop", tokens=tokens)
            values[key] = value
            previous = key
        return Generation(json.dumps(values, ensure_ascii=False), "stop", tokens=tokens)

    def _complete(
        self,
        messages: Sequence[Message],
        seed: int,
        *,
        structured: bool = False,
        max_tokens: int | None = None,
    ) -> Generation:
        owner = self.owner
        body: dict[str, Any] = {
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "temperature": float(owner.temperature),
            "top_p": float(owner.top_p),
            "max_tokens": int(max_tokens or owner.max_new_tokens),
            "seed": seed,
            "stream": False,
        }
        if owner.model:
            body["model"] = owner.model
        if structured:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "example", "strict": True, "schema": self.schema},
            }
        url = f"{self.base}/chat/completions"
        headers = owner._headers(self.key)
        timeout = owner._timeout()

        def send() -> _http.Reply:
            return _http.request(
                "POST", url, body=body, headers=headers, timeout=timeout, stop=self.stop
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
            if structured and reply.status in (400, 422, 500, 501):
                detail = owner._redact(reply.detail(), self.key)
                if any(word in detail.lower() for word in _SCHEMA_WORDS):
                    raise _Refused(f"HTTP {reply.status}: {detail}")
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


_LABEL = re.compile(r"^\W{0,3}(?P<label>[A-Za-z_ -]{1,30}?)\W{0,3}\s*:\s*", re.DOTALL)
_FENCED = re.compile(r"^```[A-Za-z]*\s*\n?(.*?)\n?```$", re.DOTALL)


def field_value(text: str, key: str, *, cut: bool = False) -> str | None:
    """One field's value from a plain-text reply: without a fence, a ``key:`` label, quotes,
    or the JSON a model wrote anyway (an object, or just ``"key": "value"``).

    A reply ``cut`` at the token limit keeps what is whole in it: the key's complete JSON
    string, else its complete sentences; ``None`` when nothing is whole.
    """
    value = text.strip()
    found = find_object(value, [key])
    if found is not None:
        return str(found[key]).strip()
    pair = re.search(rf'"{re.escape(key)}"\s*:\s*("(?:[^"\\]|\\.)*")', value)
    if pair:
        try:
            return str(json.loads(pair.group(1))).strip()
        except ValueError:
            pass
    fenced = _FENCED.match(value)
    if fenced:
        value = fenced.group(1).strip()
    label = _LABEL.match(value)
    if label and label.group("label").strip().lower().replace(" ", "_") == key.lower():
        value = value[label.end() :].strip()
    if cut:
        end = max(value.rfind(mark) for mark in (". ", "? ", "! ", ".\n", "?\n", "!\n"))
        if value[-1:] in ".?!":
            end = len(value) - 1
        if end < 0:
            return None
        value = value[: end + 1].strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1].strip()
    return value
