"""Start the real ``transformers serve`` on the bundled SmolLM2 (for tests and benchmarks).

``transformers serve`` reads a Hugging Face folder; the bundled model is a GGUF file, so the
server is given the de-quantised folder Vendiscope's own loader keeps in the user cache
(:func:`vendiscope.core.gradients.proxy.load_proxy` writes it on first use). Offline
(``HF_HUB_OFFLINE=1``), on the CPU, on a free loopback port.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

STARTUP_TIMEOUT = 300.0


def bundled_folder() -> str:
    """The bundled SmolLM2 as a Hugging Face folder (de-quantised once, then cached)."""
    from vendiscope.core.gradients.proxy import load_proxy

    model, _, info = load_proxy(None, device="cpu")
    del model
    return info["path"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class TransformersServe:
    """A running ``transformers serve FOLDER`` (call :meth:`stop`, or use as a context)."""

    def __init__(
        self, folder: str, log: Path, *, threads: int | None = 1, extra: tuple = ()
    ) -> None:
        self.model = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        executable = Path(sys.executable).with_name("transformers")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}
        if threads is not None:  # a busy shared CPU runs one thread much faster than two
            env["OMP_NUM_THREADS"] = str(threads)
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [str(executable), "serve", folder, "--host", "127.0.0.1",
                 "--port", str(self.port), "--device", "cpu", "--log-level", "warning", *extra],
                stdout=out, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip
        try:
            self._wait()
        except BaseException:
            self.stop()
            raise

    def _wait(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"transformers serve exited with {self.process.returncode}:\n{self.tail()}"
                )
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=2) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"transformers serve not ready in {STARTUP_TIMEOUT:g} s:\n{self.tail()}")

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)

    def __enter__(self) -> TransformersServe:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
