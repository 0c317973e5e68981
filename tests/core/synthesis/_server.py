"""An OpenAI-compatible chat server on loopback that answers with examples from a list.

A real HTTP server (``ThreadingHTTPServer``) speaking ``/v1/models`` and
``/v1/chat/completions``: each answer is chosen by a hash of the request's messages and
seed, so the same request always gets the same example, whatever the order of requests.
``mode="garbage"`` answers prose with no JSON; ``delay`` slows every completion.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def example_server(
    examples: Sequence[dict[str, str]],
    *,
    model: str = "scripted",
    mode: str = "json",
    delay: float = 0.0,
) -> Iterator[dict[str, Any]]:
    """Serve ``examples`` on a free loopback port; yields ``{"url", "requests", "headers"}``."""
    seen: dict[str, Any] = {"requests": 0, "headers": []}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client hung up (a cancelled run): what it may do

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": model, "object": "model"}]})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            request = json.loads(self.rfile.read(length))
            with lock:
                seen["requests"] += 1
                seen["headers"].append(dict(self.headers))
            if request.get("model") != model:
                self._send(404, {"error": {"message": f"model {request.get('model')} not found",
                                           "code": "model_not_found"}})  # fmt: skip
                return
            if delay:
                threading.Event().wait(delay)
            key = json.dumps([request["messages"], request.get("seed")], sort_keys=True)
            index = int(hashlib.sha256(key.encode()).hexdigest(), 16) % len(examples)
            if mode == "garbage":
                content = "I am sorry, I cannot write that example."
            else:
                content = "Here it is:\n```json\n" + json.dumps(examples[index]) + "\n```"
            self._send(200, {
                "id": "c", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"completion_tokens": len(content.split())},
            })  # fmt: skip

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        seen["url"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
        yield seen
    finally:
        server.shutdown()
        server.server_close()
