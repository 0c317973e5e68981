"""The ``openai`` generator against a real socket whose server misbehaves on purpose.

A ``ThreadingHTTPServer`` on 127.0.0.1 (a free port) answers ``/v1/chat/completions`` and
``/v1/models`` as each test scripts it: slow, 429 with ``Retry-After``, 500s, bodies that are
not JSON or not UTF-8, no choices, truncated completions, refused keys, unknown models.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from vendiscope.api import Cancelled, CancelToken, NullProgress, PluginError, RecordingProgress
from vendiscope.plugins.generators import _http
from vendiscope.plugins.generators.openai_compat import OpenAIGenerator
from vendiscope.testing import check_generator

PROMPTS = [
    [{"role": "user", "content": "first"}],
    [{"role": "system", "content": "terse"}, {"role": "user", "content": "second"}],
    [{"role": "user", "content": "third ✓"}],
]
KEY = "sk-test-DO-NOT-LEAK-0123456789"


def completion(text: str, finish: str = "stop", tokens: int = 3) -> dict[str, Any]:
    return {
        "id": "x",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        ],
        "usage": {"completion_tokens": tokens, "prompt_tokens": 5, "total_tokens": tokens + 5},
    }


@dataclass
class Seen:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class Script:
    """What the server does: ``respond(request number, seen) -> (status, headers, body)``."""

    respond: Callable[[int, Seen], tuple[int, dict[str, str], bytes]] | None = None
    models: list[str] = field(default_factory=lambda: ["tiny-model"])
    seen: list[Seen] = field(default_factory=list)
    in_flight: int = 0
    most_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def echo(number: int, seen: Seen) -> tuple[int, dict[str, str], bytes]:
    """A well-behaved server: the last message's content, upper-cased."""
    content = seen.body["messages"][-1]["content"].upper()
    return 200, {}, json.dumps(completion(content)).encode()


class Server:
    def __init__(self) -> None:
        script = self.script = Script()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                seen = Seen(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    json.loads(raw) if raw else None,
                    time.monotonic(),
                )
                with script.lock:
                    script.seen.append(seen)
                    number = sum(1 for s in script.seen if s.path == seen.path)
                    script.in_flight += 1
                    script.most_in_flight = max(script.most_in_flight, script.in_flight)
                try:
                    if self.path == "/v1/models":
                        data = [{"id": m, "object": "model"} for m in script.models]
                        status, headers, body = 200, {}, json.dumps({"data": data}).encode()
                    else:
                        status, headers, body = (script.respond or echo)(number, seen)
                finally:
                    with script.lock:
                        script.in_flight -= 1
                try:
                    self.send_response(status)
                    for name, value in {"Content-Type": "application/json", **headers}.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            do_GET = _serve
            do_POST = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def posts(self) -> list[Seen]:
        return [s for s in self.script.seen if s.method == "POST"]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    running = Server()
    yield running
    running.close()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run(generator: OpenAIGenerator, prompts: Any = PROMPTS, seed: int = 0, **kw: Any) -> Any:
    kw.setdefault("progress", NullProgress())
    kw.setdefault("cancel", CancelToken())
    return generator.generate(prompts, seed=seed, **kw)


def gen(server: Server, **params: Any) -> OpenAIGenerator:
    params.setdefault("model", "tiny-model")
    params.setdefault("api_key_env", "VENDISCOPE_TEST_NO_SUCH_KEY")
    return OpenAIGenerator(base_url=server.url, **params)


# --------------------------------------------------------------------------- the happy path
def test_answers_in_order_with_bounded_concurrency(server: Server) -> None:
    def slow_echo(number: int, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        time.sleep(0.15)
        return echo(number, seen)

    server.script.respond = slow_echo
    prompts = [[{"role": "user", "content": f"p{i}"}] for i in range(8)]
    progress = RecordingProgress()
    out = run(gen(server, concurrency=3), prompts, progress=progress)
    assert [g.text for g in out] == [f"P{i}" for i in range(8)]
    assert all(g.finish_reason == "stop" and g.tokens == 3 and g.error is None for g in out)
    assert server.script.most_in_flight == 3
    assert progress.updates[-1] == (8, 8)
    body = server.posts()[0].body
    assert body["model"] == "tiny-model" and body["max_tokens"] == 256
    assert body["temperature"] == 0.8 and body["top_p"] == 0.95 and body["stream"] is False


def test_seeds_are_sent_per_prompt_and_repeat_with_the_seed(server: Server) -> None:
    generator = gen(server)
    run(generator, seed=5)
    run(generator, seed=5)
    run(generator, seed=6)
    by_call = [server.posts()[i : i + 3] for i in (0, 3, 6)]
    seeds = [
        sorted((s.body["messages"][-1]["content"], s.body["seed"]) for s in c) for c in by_call
    ]
    assert seeds[0] == seeds[1] != seeds[2]
    assert len({seed for _, seed in seeds[0]}) == 3
    assert all(isinstance(seed, int) and 0 <= seed < 2**31 for _, seed in seeds[0])


def test_passes_the_conformance_kit(server: Server) -> None:
    check_generator(OpenAIGenerator, params={"base_url": server.url, "model": "tiny-model"},
                    live=True)  # fmt: skip


@pytest.mark.parametrize(
    "given",
    ["http://h:8000", "http://h:8000/", "http://h:8000/v1", "http://h:8000/v1/",
     "h:8000", "http://h:8000/v1/chat/completions"],
)  # fmt: skip
def test_base_url_is_normalised(given: str) -> None:
    assert _http.normalise_base(given) == "http://h:8000/v1"


def test_base_url_keeps_other_versions_and_paths() -> None:
    assert (
        _http.normalise_base("https://api.x.ai/openai/v1beta") == "https://api.x.ai/openai/v1beta"
    )
    assert _http.normalise_base("http://h/proxy") == "http://h/proxy/v1"
    with pytest.raises(ValueError, match="base_url"):
        _http.normalise_base("")


# --------------------------------------------------------------------------- whole-run failures
def test_a_server_not_running_names_the_url() -> None:
    port = closed_port()
    generator = OpenAIGenerator(base_url=f"http://127.0.0.1:{port}", model="m")
    expected = f"cannot reach the generation server at http://127.0.0.1:{port}/v1 "
    with pytest.raises(PluginError, match=rf"{expected}\(connection refused\)"):
        run(generator)
    with pytest.raises(PluginError, match="connection refused"):
        generator.check()


def test_an_unknown_model_names_it_and_what_is_served(server: Server) -> None:
    def not_found(number: int, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        message = {"error": {"message": f"The model `{seen.body['model']}` does not exist."}}
        return 404, {}, json.dumps(message).encode()

    server.script.respond = not_found
    server.script.models = ["tiny-model", "other-model"]
    with pytest.raises(PluginError, match=r"model 'gpt-9'.*serves: tiny-model, other-model"):
        run(gen(server, model="gpt-9"))
    with pytest.raises(PluginError, match=r"does not serve the model 'gpt-9'"):
        gen(server, model="gpt-9").check()
    assert "serves 'tiny-model'" in gen(server).check()


def test_the_key_is_sent_as_bearer_and_never_shown(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VENDISCOPE_TEST_KEY", KEY)
    generator = gen(server, api_key_env="VENDISCOPE_TEST_KEY")
    assert [g.text for g in run(generator)] == ["FIRST", "SECOND", "THIRD ✓"]
    assert {s.headers.get("authorization") for s in server.posts()} == {f"Bearer {KEY}"}
    generator.check()
    assert server.script.seen[-1].headers.get("authorization") == f"Bearer {KEY}"
    shown = generator.model_id + json.dumps(generator.describe()) + repr(generator.__dict__)
    assert KEY not in shown and "VENDISCOPE_TEST_KEY" in json.dumps(generator.describe())

    def refuse(number: int, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        # some servers echo the key they refused: it must not reach the message
        message = {"error": {"message": f"Incorrect API key provided: {KEY}"}}
        return 401, {}, json.dumps(message).encode()

    server.script.respond = refuse
    with pytest.raises(PluginError) as caught:
        run(generator)
    text = str(caught.value)
    assert KEY not in text and "VENDISCOPE_TEST_KEY" in text and "HTTP 401" in text
    assert KEY not in repr(caught.value.__cause__) and KEY not in repr(caught.value.__context__)


def test_no_variable_sends_no_authorization(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run(gen(server, api_key_env="OPENAI_API_KEY"))
    assert all("authorization" not in s.headers for s in server.posts())

    server.script.respond = lambda n, s: (403, {}, b'{"error": {"message": "key needed"}}')
    with pytest.raises(PluginError, match="no key was sent: set the environment variable "
                       "OPENAI_API_KEY"):  # fmt: skip
        run(gen(server, api_key_env="OPENAI_API_KEY"))


# --------------------------------------------------------------------------- retries
def test_429_with_retry_after_is_waited_then_succeeds(server: Server) -> None:
    def busy_once(number: int, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        if number == 1:
            return 429, {"Retry-After": "1"}, b'{"error": {"message": "slow down"}}'
        return echo(number, seen)

    server.script.respond = busy_once
    out = run(gen(server, concurrency=1), PROMPTS[:1])
    assert out[0].text == "FIRST" and out[0].error is None
    first, second = server.posts()
    assert second.at - first.at >= 0.95


def test_500_then_success(server: Server) -> None:
    server.script.respond = lambda n, s: (500, {}, b"oops") if n == 1 else echo(n, s)
    out = run(gen(server, concurrency=1), PROMPTS[:1])
    assert out[0].text == "FIRST" and len(server.posts()) == 2


def test_500_always_is_an_error_after_max_retries(server: Server) -> None:
    server.script.respond = lambda n, s: (500, {}, b'{"error": {"message": "boom"}}')
    out = run(gen(server, max_retries=2), PROMPTS[:1])
    assert out[0].text is None
    assert out[0].error == "HTTP 500: boom after 2 retries"
    assert len(server.posts()) == 3


def test_a_timed_out_request_is_not_retried(server: Server) -> None:
    """The server may still be working on it: a second copy would queue behind the first."""

    def stall(number: int, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        time.sleep(1.2)
        return echo(number, seen)

    server.script.respond = stall
    started = time.monotonic()
    out = run(gen(server, timeout=0.3, max_retries=3), PROMPTS[:1])
    assert out[0].text is None and "(timeout); not retried" in out[0].error
    assert len(server.posts()) == 1
    assert time.monotonic() - started < 0.3 + 2


def test_retry_after_as_a_date_and_capped() -> None:
    now = 1_000_000.0
    assert _http.retry_after("2") == 2.0
    assert _http.retry_after("Mon, 12 Jan 1970 13:46:45 GMT", now=now) == pytest.approx(5.0)
    assert _http.retry_after("86400") == _http.MAX_RETRY_AFTER
    assert _http.retry_after("soon") is None and _http.retry_after("-3") == 0.0


# --------------------------------------------------------------------------- bad replies
@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"<html>Bad gateway</html>", "unreadable reply: the reply is not JSON: '<html>Bad"),
        (json.dumps({"choices": []}).encode(), "the server returned no choices"),
        (
            b'{"choices": [{"message": {"role": "assistant", "content": "caf\xe9 \xff"}, '
            b'"finish_reason": "stop"}]}',
            "unreadable reply: the reply is not valid UTF-8 (byte 0xe9",
        ),
        (
            json.dumps(completion("\ud800 lone"), ensure_ascii=False).encode(
                "utf-8", "surrogatepass"
            ),
            "unreadable reply: the reply is not valid UTF-8",
        ),
        (
            b'{"choices": [{"message": {"role": "assistant", "content": "\\ud800"}}]}',
            "the reply's content is not valid Unicode (a lone surrogate)",
        ),
        (
            json.dumps({"choices": [{"message": {"role": "assistant", "content": None}}]}).encode(),
            "the reply has no message content",
        ),
    ],
    ids=["not-json", "no-choices", "invalid-utf8", "surrogate-bytes", "surrogate-escape", "none"],
)
def test_a_bad_reply_is_that_prompts_error(server: Server, body: bytes, error: str) -> None:
    server.script.respond = lambda n, s: (200, {}, body)
    out = run(gen(server), PROMPTS[:2])
    assert [g.text for g in out] == [None, None]
    assert out[0].error.startswith(error), out[0].error


def test_a_truncated_completion_keeps_its_text_and_length(server: Server) -> None:
    server.script.respond = lambda n, s: (
        200,
        {},
        json.dumps(completion("cut", "length", 9)).encode(),
    )
    out = run(gen(server), PROMPTS[:1])
    assert (out[0].text, out[0].finish_reason, out[0].tokens, out[0].error) == (
        "cut",
        "length",
        9,
        None,
    )


def test_a_bad_request_is_that_prompts_error(server: Server) -> None:
    server.script.respond = lambda n, s: (400, {}, b'{"error": {"message": "prompt too long"}}')
    out = run(gen(server), PROMPTS[:1])
    assert out[0].text is None and out[0].error == "HTTP 400: prompt too long"


def test_cancel_stops_waiting_for_a_slow_server(server: Server) -> None:
    def stall(number: int, seen: Seen) -> tuple[int, dict[str, str], bytes]:
        time.sleep(2)
        return echo(number, seen)

    server.script.respond = stall
    cancel = CancelToken()
    threading.Timer(0.3, cancel.cancel).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        run(gen(server, concurrency=1), [PROMPTS[0]] * 4, cancel=cancel)
    assert time.monotonic() - started < 1.5
    assert len(server.posts()) == 1
