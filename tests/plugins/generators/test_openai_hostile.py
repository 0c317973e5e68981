"""The ``openai`` generator against real sockets that misbehave the way real servers do.

Each server is a real TCP server on 127.0.0.1 that writes raw HTTP: a reply trickled one byte
at a time, headers trickled, an endless chunked stream, a reply far over the size cap, a
server that queues requests and answers one at a time. Every case must end within its timeout
plus 2 s, with the reason in the prompt's error and no retry of a timed-out request.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from vendiscope.api import CancelToken, NullProgress
from vendiscope.plugins.generators import _http
from vendiscope.plugins.generators.openai_compat import OpenAIGenerator

PROMPT = [{"role": "user", "content": "hello"}]
TIMEOUT = 1.5
SLACK = 2.0  # every hostile case ends within its timeout plus this

Behaviour = Callable[[socket.socket, bytes], None]


def completion(text: str, tokens: int = 4) -> bytes:
    return json.dumps(
        {
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text},
                 "finish_reason": "stop"}
            ],
            "usage": {"completion_tokens": tokens},
        }
    ).encode()  # fmt: skip


class RawServer:
    """A threaded TCP server whose handler reads one request and then runs ``behaviour``."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.requests: list[bytes] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.lock = threading.Lock()
        self.closed = threading.Event()
        server = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                head = b""
                while b"\r\n\r\n" not in head:
                    data = self.request.recv(65536)
                    if not data:
                        return
                    head += data
                header, _, body = head.partition(b"\r\n\r\n")
                length = 0
                for line in header.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                while len(body) < length:
                    body += self.request.recv(65536)
                with server.lock:
                    server.requests.append(header.split(b"\r\n", 1)[0])
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                try:
                    if header.startswith(b"GET"):
                        models = json.dumps({"data": [{"id": "m"}]}).encode()
                        reply(self.request, 200, models)
                    else:
                        behaviour(self.request, body)
                except OSError:
                    pass  # the client hung up: what these tests want it to do
                finally:
                    with server.lock:
                        server.in_flight -= 1

        self.tcp = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.tcp.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.tcp.server_address[1]}"
        threading.Thread(target=self.tcp.serve_forever, daemon=True).start()

    def posts(self) -> int:
        return sum(1 for r in self.requests if r.startswith(b"POST"))

    def close(self) -> None:
        self.closed.set()
        self.tcp.shutdown()
        self.tcp.server_close()


def reply(sock: socket.socket, status: int, body: bytes) -> None:
    head = (
        f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    sock.sendall(head.encode() + body)


@pytest.fixture
def serve() -> Iterator[Callable[[Behaviour], RawServer]]:
    started: list[RawServer] = []

    def start(behaviour: Behaviour) -> RawServer:
        started.append(RawServer(behaviour))
        return started[-1]

    yield start
    for server in started:
        server.close()


def ask(server: RawServer, prompts: Any = (PROMPT,), **params: Any) -> tuple[list, float]:
    params.setdefault("timeout", TIMEOUT)
    params.setdefault("concurrency", 1)
    params.setdefault("max_retries", 3)
    generator = OpenAIGenerator(base_url=server.url, model="m", **params)
    started = time.monotonic()
    out = generator.generate(list(prompts), seed=0, progress=NullProgress(), cancel=CancelToken())
    return out, time.monotonic() - started


def test_a_trickled_reply_is_cut_at_the_timeout(serve: Callable[[Behaviour], RawServer]) -> None:
    def trickle(sock: socket.socket, body: bytes) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100000\r\n\r\n")  # fmt: skip
        while True:  # a byte every 0.1 s: a per-read timeout would never fire
            sock.sendall(b" ")
            time.sleep(0.1)

    server = serve(trickle)
    out, took = ask(server)
    assert took < TIMEOUT + SLACK
    assert out[0].text is None and "(timeout); not retried" in out[0].error
    assert server.posts() == 1


def test_trickled_headers_are_cut_at_the_timeout(serve: Callable[[Behaviour], RawServer]) -> None:
    def slow_headers(sock: socket.socket, body: bytes) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\n")
        while True:
            sock.sendall(b"X")
            time.sleep(0.1)

    server = serve(slow_headers)
    out, took = ask(server)
    assert took < TIMEOUT + SLACK
    assert "(timeout)" in out[0].error and server.posts() == 1


def test_an_endless_stream_is_cut_at_the_timeout(serve: Callable[[Behaviour], RawServer]) -> None:
    def endless(sock: socket.socket, body: bytes) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")  # fmt: skip
        event = b'data: {"choices": [{"delta": {"content": "la "}}]}\n\n'
        while True:
            sock.sendall(b"%x\r\n%s\r\n" % (len(event), event))
            time.sleep(0.01)

    server = serve(endless)
    out, took = ask(server)
    assert took < TIMEOUT + SLACK
    assert "(timeout)" in out[0].error and server.posts() == 1


def test_a_huge_reply_is_capped(serve: Callable[[Behaviour], RawServer]) -> None:
    def huge(sock: socket.socket, body: bytes) -> None:
        size = 64 * 1024 * 1024
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % size)  # fmt: skip
        block = b"x" * 65536
        for _ in range(size // len(block)):
            sock.sendall(block)

    server = serve(huge)
    out, took = ask(server, timeout=10.0)
    assert took < 10.0 + SLACK
    assert out[0].text is None
    assert out[0].error == f"the reply was larger than {_http.MAX_REPLY_BYTES:,} bytes; cut off"
    assert server.posts() == 1


def queue(seconds: float) -> Behaviour:
    """A server that serves one request at a time (llama.cpp's does): the rest wait."""
    lock = threading.Lock()

    def serve_one(sock: socket.socket, body: bytes) -> None:
        with lock:
            time.sleep(seconds)
            content = json.loads(body)["messages"][-1]["content"]
            reply(sock, 200, completion(content.upper(), tokens=8))

    return serve_one


def test_a_queueing_server_is_not_piled_onto(serve: Callable[[Behaviour], RawServer]) -> None:
    """Requests that time out in its queue are abandoned, never sent again: the queue does not
    grow behind the work the server still has to do."""
    server = serve(queue(3.0))
    prompts = [[{"role": "user", "content": f"p{i}"}] for i in range(4)]
    out, took = ask(server, prompts, concurrency=4, timeout=1.0)
    assert took < 1.0 + SLACK
    assert all("(timeout); not retried" in g.error for g in out)
    assert server.posts() == 4


def test_the_first_call_measures_a_queueing_server(
    serve: Callable[[Behaviour], RawServer],
) -> None:
    server = serve(queue(0.3))
    prompts = [[{"role": "user", "content": f"p{i}"}] for i in range(5)]
    generator = OpenAIGenerator(base_url=server.url, model="m")
    out = generator.generate(prompts, seed=0, progress=NullProgress(), cancel=CancelToken())
    assert [g.text for g in out] == [f"P{i}" for i in range(5)]
    measured = generator.measured_
    assert measured["concurrency"] == 1 and measured["parallel"] is False
    assert measured["tokens_first"] == 8 and measured["timeout"] >= 30
    assert generator.describe()["measured"] == measured
    # after the measurement, requests went one at a time
    assert server.posts() == 5


def test_the_first_call_measures_a_batching_server(
    serve: Callable[[Behaviour], RawServer],
) -> None:
    def parallel(sock: socket.socket, body: bytes) -> None:
        time.sleep(0.3)
        content = json.loads(body)["messages"][-1]["content"]
        reply(sock, 200, completion(content.upper(), tokens=8))

    server = serve(parallel)
    prompts = [[{"role": "user", "content": f"p{i}"}] for i in range(9)]
    generator = OpenAIGenerator(base_url=server.url, model="m")
    out = generator.generate(prompts, seed=0, progress=NullProgress(), cancel=CancelToken())
    assert [g.text for g in out] == [f"P{i}" for i in range(9)]
    assert generator.measured_["concurrency"] == 4
    assert server.most_in_flight == 4


def test_a_cancel_hangs_up_on_a_request_in_flight(
    serve: Callable[[Behaviour], RawServer],
) -> None:
    """The server sees the connection close, which is how servers learn to stop working."""
    hung_up = threading.Event()

    def stall(sock: socket.socket, body: bytes) -> None:
        sock.settimeout(10)
        if sock.recv(1) == b"":
            hung_up.set()

    server = serve(stall)
    cancel = CancelToken()
    threading.Timer(0.3, cancel.cancel).start()
    generator = OpenAIGenerator(base_url=server.url, model="m", timeout=30.0, concurrency=1)
    with pytest.raises(Exception, match="cancel"):
        generator.generate([PROMPT], seed=0, progress=NullProgress(), cancel=cancel)
    assert hung_up.wait(SLACK)


def test_check_says_a_busy_server_is_busy() -> None:
    """A server that takes the connection and never answers (its one worker is busy) is
    "busy", not "cannot reach", and the check ends within its own timeout plus 2 s."""
    from vendiscope.api import PluginError
    from vendiscope.plugins.generators.openai_compat import PROBE_TIMEOUT

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)  # accepted by the kernel, never read: a server stuck on a long request
    try:
        port = listener.getsockname()[1]
        generator = OpenAIGenerator(base_url=f"http://127.0.0.1:{port}", model="m")
        started = time.monotonic()
        with pytest.raises(PluginError, match=r"accepted the connection but did not answer "
                           r"GET /models within 10 s: it is busy"):  # fmt: skip
            generator.check()
        assert time.monotonic() - started < PROBE_TIMEOUT + SLACK
    finally:
        listener.close()
