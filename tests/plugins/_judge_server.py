"""A real OpenAI-compatible judge on 127.0.0.1 for the LLM-judge tests: it answers each
"What is i + i?" record (``tests.conftest.qa_rows``) with a rating as the schema's JSON."""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

UNREADABLE = 7
"""The record whose reply the server garbles."""


def expected_rating(i: int) -> float:
    return math.nan if i == UNREADABLE else float(1 + i % 5)


class JudgeServer:
    """``/v1/chat/completions`` answering as a judge: record ``i`` ("What is i + i?") gets the
    rating ``1 + i % 5`` as the schema's JSON object, except record 7 (a rating off the
    scale)."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.judged: list[int] = []
        self.on_judged: Callable[[int], None] | None = None
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._send({"data": [{"id": "judge-model", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                self._send(server.answer(body))

            def _send(self, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.bodies.append(body)
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema", {})
        user = body["messages"][-1]["content"]
        if "ok" in schema.get("properties", {}):  # the generator's probe of structured output
            return _completion('{"ok": "yes"}')
        found = re.search(r"What is (\d+) \+", user)
        if found is None:  # another record: a rating that depends on it alone
            rating = 1 + sum(user.encode()) % 5
            return _completion(json.dumps({"rating": str(rating), "reason": "read it"}))
        i = int(found.group(1))
        with self.lock:
            self.judged.append(i)
        if self.on_judged is not None:
            self.on_judged(i)
        if i == UNREADABLE:  # a server that keeps to the keys but not to the scale
            return _completion('{"rating": "hard to say", "reason": "it depends"}')
        reply = {"rating": str(1 + i % 5), "reason": f"the sum {2 * i} is right"}
        return _completion(json.dumps(reply))

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _completion(text: str) -> dict[str, Any]:
    return {
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"completion_tokens": 20, "prompt_tokens": 200, "total_tokens": 220},
    }


def judge_params(server: JudgeServer, **more: Any) -> dict[str, Any]:
    """The llm-judge signal's parameters for ``server``."""
    settings = f"base_url={server.url}, model=judge-model, api_key_env=NO_SUCH_KEY_VAR, "
    settings += "concurrency=2"
    return {"generator": "openai", "generator_params": settings, **more}
