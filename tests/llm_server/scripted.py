"""A scripted OpenAI-compatible server on 127.0.0.1: a real HTTP server, not a mock.

It answers ``POST /v1/chat/completions`` with whatever a script returns for the request's
MetaRAG task (read from the prompt's data fences), optionally after a delay during which it
watches its connection: a client that closes the request is recorded as a disconnect, the way
llama.cpp notices one and stops generating. A request with ``"stream": true`` is answered as
server-sent events, the reply's words spread over the delay. ``plain_disconnects=False``
models llama-cpp-python's server, which notices a closed connection only while streaming: a
plain request runs its whole delay (holding the slot) whatever the client does. Every exchange
is recorded with its timings, so tests can check what reached the wire and when.
"""

from __future__ import annotations

import contextlib
import json
import re
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_FENCE = re.compile(r"\[BEGIN DATA(?: [0-9a-f]+)?: (\w+)\]")
_TASKS = {
    "inputText": "decompose",
    "statements": "verify_batch",
    "statement": "verify",
    "factoids": "mutate_all",
}


def task_of(prompt: str) -> str:
    """The MetaRAG task a rendered prompt asks for (from the name of its first data fence)."""
    names = _FENCE.findall(prompt)
    for name in names:
        if name in _TASKS:
            return _TASKS[name]
    if "factoid" in names:
        return "antonym" if "*negations*" in prompt else "synonym"
    return "unknown"


@dataclass
class Exchange:
    """One request as the server saw it."""

    task: str
    body: dict[str, Any]
    started: float
    finished: float | None = None
    disconnected: bool = False


#: What to answer: ``script(task, body) -> reply text``.
Script = Callable[[str, dict[str, Any]], str]
#: How long to "generate" before answering: ``delay(task, body) -> seconds``.
Delay = Callable[[str, dict[str, Any]], float]


@dataclass
class ScriptedServer:
    """The server's script and what it saw. ``serial``: one generation at a time, like a
    llama.cpp server with one slot (a request waits for the one before it to end, or for its
    client to close it)."""

    script: Script
    delay: Delay = lambda task, body: 0.0
    serial: bool = False
    plain_disconnects: bool = True
    stream_usage: bool = False
    exchanges: list[Exchange] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _slot: threading.Lock = field(default_factory=threading.Lock)

    def tasks(self) -> list[str]:
        with self._lock:
            return [e.task for e in self.exchanges]


def _closed(sock: socket.socket) -> bool:
    """True when the peer has closed the connection (readable with nothing to read)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
            exchange = Exchange(task=task_of(prompt), body=body, started=time.monotonic())
            with server._lock:
                server.exchanges.append(exchange)
            slot = server._slot if server.serial else contextlib.nullcontext()
            with slot:
                if body.get("stream"):
                    self._stream(exchange, body, prompt)
                    return
                until = time.monotonic() + server.delay(exchange.task, body)
                while time.monotonic() < until:
                    if server.plain_disconnects and _closed(self.connection):
                        exchange.disconnected = True
                        exchange.finished = time.monotonic()
                        self.close_connection = True
                        return
                    time.sleep(0.02)
            text = server.script(exchange.task, body)
            self._send(
                200,
                {
                    "id": "chatcmpl-scripted",
                    "object": "chat.completion",
                    "created": 1,
                    "model": "scripted",
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": text},
                        }
                    ],
                    "usage": {
                        "prompt_tokens": len(prompt) // 4,
                        "completion_tokens": len(text) // 4 + 1,
                        "total_tokens": len(prompt) // 4 + len(text) // 4 + 1,
                    },
                },
            )
            exchange.finished = time.monotonic()

        def _event(self, payload: dict[str, Any] | str) -> None:
            data = payload if isinstance(payload, str) else json.dumps(payload)
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()

        def _stream(self, exchange: Exchange, body: dict[str, Any], prompt: str) -> None:
            """The reply as chat.completion.chunk events, its words spread over the delay;
            a closed connection ends generation (recorded as a disconnect). No usage chunk,
            as llama-cpp-python sends none, unless ``stream_usage`` asks for one."""
            text = server.script(exchange.task, body)
            words = re.findall(r"\S+\s*", text) or [""]
            pause = server.delay(exchange.task, body) / len(words)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True
            chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "s"}
            try:
                for word in words:
                    until = time.monotonic() + pause
                    while time.monotonic() < until:
                        if _closed(self.connection):
                            raise ConnectionResetError
                        time.sleep(0.02)
                    delta = {"index": 0, "delta": {"content": word}, "finish_reason": None}
                    self._event({**chunk, "choices": [delta]})
                if server.stream_usage:
                    usage = {"prompt_tokens": len(prompt) // 4, "completion_tokens": len(words)}
                    usage["total_tokens"] = usage["prompt_tokens"] + len(words)
                    self._event({**chunk, "choices": [], "usage": usage})
                self._event("[DONE]")
            except (ConnectionResetError, BrokenPipeError):
                exchange.disconnected = True
            exchange.finished = time.monotonic()

    return Handler


@contextlib.contextmanager
def scripted_server(
    script: Script,
    delay: Delay | None = None,
    *,
    serial: bool = False,
    plain_disconnects: bool = True,
    stream_usage: bool = False,
) -> Iterator[ScriptedServer]:
    """Serve ``script`` on 127.0.0.1 (a free port) until the block ends."""
    state = ScriptedServer(
        script,
        delay or (lambda task, body: 0.0),
        serial=serial,
        plain_disconnects=plain_disconnects,
        stream_usage=stream_usage,
    )
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
