"""A small HTTP/JSON client on the standard library, with retries (for the ``openai`` generator).

:func:`request` sends one request on a new connection and returns a :class:`Reply` (any status)
or raises :class:`Unreachable` (nothing listens there, the name does not resolve) or
:class:`Transient` (a reset: worth retrying), :class:`TimedOut` (no complete reply within the
timeout, which bounds the whole reply: not retried) or :class:`TooLarge` (a reply over the size
cap). :func:`with_retries` retries resets, HTTP 429 and 5xx with exponential backoff, honouring
``Retry-After``; never a timed-out request, which the server may still be working on.
"""

from __future__ import annotations

import contextlib
import email.utils
import http.client
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529})
MAX_RETRY_AFTER = 60.0
"""The longest ``Retry-After`` wait honoured, in seconds (a longer one is cut to this)."""
BACKOFF_START = 0.5
BACKOFF_MAX = 8.0


class Unreachable(Exception):
    """Nothing answers at the address (connection refused, unknown host, no route)."""


class Transient(Exception):
    """A failure worth retrying: a reset, a cut-off reply, a closed connection."""


class TimedOut(Transient):
    """No complete reply within the timeout. Never retried: the server may still be working
    on the request, and sending it again would queue a second copy behind the first.
    ``connected`` says whether the server had accepted the connection (busy, not absent)."""

    def __init__(self, message: str, *, connected: bool = True) -> None:
        super().__init__(message)
        self.connected = connected


class TooLarge(Exception):
    """The reply was larger than the cap (an endless or runaway reply)."""


@dataclass
class Reply:
    """An HTTP reply: status, headers (lower-case names) and the raw body."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def json(self) -> object:
        """The body as JSON; ``ValueError`` (with a reason) when it is not UTF-8 JSON."""
        try:
            text = self.body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"the reply is not valid UTF-8 (byte 0x{self.body[exc.start]:02x} at "
                f"position {exc.start})"
            ) from None
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            preview = " ".join(text.split())[:80]
            raise ValueError(f"the reply is not JSON: {preview!r}") from None

    def detail(self) -> str:
        """A short reason from an error body (``error.message``, ``detail``), or the status."""
        try:
            data = self.json()
        except ValueError:
            text = self.body.decode("utf-8", "replace").strip()
            return " ".join(text.split())[:200] or http.client.responses.get(self.status, "")
        if isinstance(data, dict):
            error = data.get("error")
            if isinstance(error, dict) and error.get("message"):
                return str(error["message"])[:300]
            for key in ("error", "detail", "message"):
                if isinstance(data.get(key), str):
                    return data[key][:300]
            if data.get("detail") is not None:
                return json.dumps(data["detail"])[:300]
        return json.dumps(data)[:200]


def normalise_base(url: str) -> str:
    """``http://host:port`` or ``.../v1`` (with or without a trailing slash) -> ``.../v1``.

    A URL whose path already ends in a version (``/v1``, ``/v1beta``, ``/openai/v1``) or that
    names the chat endpoint itself is cut back to its base.
    """
    text = str(url or "").strip()
    if not text:
        raise ValueError("base_url is empty; give the server's address, e.g. http://127.0.0.1:8000")
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url {display_url(text)!r} is not an http(s) URL")
    path = parts.path.rstrip("/")
    for suffix in ("/chat/completions", "/completions", "/models"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    last = path.rsplit("/", 1)[-1]
    if not (last.startswith("v") and last[1:2].isdigit()):
        path = f"{path}/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def display_url(url: str) -> str:
    """``url`` without user name or password (safe to show and record)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


MAX_REPLY_BYTES = 8 * 1024 * 1024
"""The largest reply body read (bytes); a longer one is cut off and is that request's error."""
_CHUNK = 65536


def request(
    method: str,
    url: str,
    *,
    body: object | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 60.0,
    max_bytes: int = MAX_REPLY_BYTES,
    stop: threading.Event | None = None,
) -> Reply:
    """Send one request (JSON body) on a fresh connection; the reply, whatever its status.

    ``timeout`` bounds the **whole** exchange (connecting, the headers and the last byte of
    the body): a server that trickles its reply or streams without end is cut off at the
    deadline (:class:`TimedOut`), however often it sends a byte. A body over ``max_bytes``
    raises :class:`TooLarge`. ``stop`` set closes the connection at once (a cancelled run),
    which tells a server that cancels abandoned requests (most do) to stop working on it.
    """
    parts = urlsplit(url)
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(
            parts.hostname, parts.port, timeout=timeout, context=ssl.create_default_context()
        )
    else:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    sent = {"Accept": "application/json", **(headers or {})}
    payload = None
    if body is not None:
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        sent["Content-Type"] = "application/json"
    if parts.username is not None:
        import base64
        from urllib.parse import unquote

        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        sent.setdefault("Authorization", "Basic " + base64.b64encode(pair).decode())
    deadline = time.monotonic() + timeout
    cut = _Cutter(connection)
    timer = threading.Timer(timeout, cut.expire)
    timer.daemon = True
    timer.start()
    watch: threading.Thread | None = None
    if stop is not None:
        watch = threading.Thread(target=cut.watch, args=(stop,), daemon=True)
        watch.start()
    try:
        try:
            connection.connect()
        except (ConnectionRefusedError, socket.gaierror) as exc:
            raise Unreachable(_reason(exc)) from None
        except OSError as exc:
            if isinstance(exc, (TimeoutError, socket.timeout)) or cut.expired:
                raise TimedOut(
                    f"no connection within {timeout:g} s (timeout)", connected=False
                ) from None
            raise Unreachable(_reason(exc)) from None
        cut.connected()
        try:
            connection.request(method, target, body=payload, headers=sent)
            response = connection.getresponse()
            data = bytearray()
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                if cut.sock is not None:
                    cut.sock.settimeout(remaining)
                chunk = response.read1(_CHUNK)
                if not chunk:
                    break
                data += chunk
                if len(data) > max_bytes:
                    raise TooLarge(f"the reply was larger than {max_bytes:,} bytes; cut off")
        except TooLarge:
            raise
        except (http.client.HTTPException, OSError) as exc:
            if cut.stopped:
                raise Transient("stopped: the run was cancelled") from None
            if cut.expired or isinstance(exc, TimeoutError):
                raise TimedOut(_timed_out(timeout)) from None
            raise Transient(_reason(exc)) from None
        if cut.expired:
            raise TimedOut(_timed_out(timeout))
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, bytes(data))
    finally:
        timer.cancel()
        cut.done()
        connection.close()


def _timed_out(timeout: float) -> str:
    return f"no complete reply within {timeout:g} s (timeout)"


class _Cutter:
    """Closes a connection's socket from another thread: at the deadline, or on ``stop``."""

    def __init__(self, connection: http.client.HTTPConnection) -> None:
        self.connection = connection
        self.sock: socket.socket | None = None
        self.expired = False
        self.stopped = False
        self.finished = threading.Event()
        self._lock = threading.Lock()

    def connected(self) -> None:
        with self._lock:
            self.sock = self.connection.sock  # kept: the connection forgets it on "close"
            if self.expired or self.stopped:
                self._shut()

    def _shut(self) -> None:
        sock = self.sock or self.connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def expire(self) -> None:
        with self._lock:
            if not self.finished.is_set():
                self.expired = True
                self._shut()

    def watch(self, stop: threading.Event) -> None:
        while not self.finished.is_set():
            if stop.wait(0.1):
                with self._lock:
                    if not self.finished.is_set():
                        self.stopped = True
                        self._shut()
                return

    def done(self) -> None:
        with self._lock:
            self.finished.set()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, socket.gaierror):
        return f"unknown host ({exc.strerror or exc})"
    if isinstance(exc, ConnectionResetError):
        return "connection reset by the server"
    if isinstance(exc, http.client.RemoteDisconnected):
        return "the server closed the connection without replying"
    if isinstance(exc, http.client.IncompleteRead):
        return "the reply was cut off"
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return str(text)


def retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date), capped."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


@dataclass
class Outcome:
    """What :func:`with_retries` ended with: a reply, or the failure after the last retry."""

    reply: Reply | None
    failure: str | None = None
    attempts: int = 1
    timed_out: bool = False


def with_retries(
    send: Callable[[], Reply],
    *,
    max_retries: int,
    stop: threading.Event,
    sleep: Callable[[float], None] | None = None,
) -> Outcome:
    """Call ``send`` until it gives a reply that is not 429 or 5xx, or retries run out.

    Waits ``BACKOFF_START * 2**attempt`` seconds (at most ``BACKOFF_MAX``) between tries, or
    the ``Retry-After`` the server asked for (at most :data:`MAX_RETRY_AFTER`). ``stop`` set
    ends the waiting early. :class:`Unreachable` propagates (the caller's whole run stops).
    A timed-out request (:class:`TimedOut`) or an oversized reply (:class:`TooLarge`) is not
    retried: it ends with that failure at once.
    """
    attempt = 0
    while True:
        attempt += 1
        wait: float | None = None
        try:
            reply = send()
        except TimedOut as exc:
            return Outcome(None, f"{exc}; not retried (the server may still be working on it)",
                           attempt, timed_out=True)  # fmt: skip
        except TooLarge as exc:
            return Outcome(None, str(exc), attempt)
        except Transient as exc:
            failure = str(exc)
            reply = None
        else:
            if reply.status not in RETRY_STATUSES:
                return Outcome(reply, None, attempt)
            failure = f"HTTP {reply.status}: {reply.detail()}"
            wait = retry_after(reply.headers.get("retry-after"))
        if attempt > max_retries or stop.is_set():
            retries = attempt - 1
            tail = f" after {retries} {'retry' if retries == 1 else 'retries'}" if retries else ""
            return Outcome(reply, f"{failure}{tail}", attempt)
        if wait is None:
            wait = min(BACKOFF_START * 2 ** (attempt - 1), BACKOFF_MAX)
        if sleep is not None:
            sleep(wait)
        elif stop.wait(wait):
            return Outcome(reply, f"{failure} (stopped while waiting to retry)", attempt)
