"""An opt-in, on-disk cache of judge replies for deterministic (temperature 0) calls.

Re-scoring the same answers — an evaluation run again after a code change, a calibration after
an ``eval`` — asks an LLM judge the same questions again. :class:`CachingJudge` wraps any judge:
a temperature-0 request it has answered before (same judge name, task, system message, prompt
up to its random data-fence marker, ``max_tokens``, stops and reply schema) is answered from
the cache, marked ``cached`` (0 tokens), and reported as such in ``Usage.cached_calls``.
Requests at a temperature above 0 (mutation generation with ``temperature > 0``) always go to
the judge. The cache is a SQLite file, safe to share between processes; failed calls are never
stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from guardrail._fs import ensure_private
from guardrail.exceptions import ConfigError
from guardrail.judges.base import Judge, JudgeRequest, JudgeResponse
from guardrail.registry import Capabilities, capabilities_of

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key               TEXT PRIMARY KEY,
    text              TEXT NOT NULL,
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL
);
"""


#: The per-answer random marker of a fenced prompt (``[BEGIN DATA 0a1b2c3d: name]``): the same
#: question asked in two runs differs only there.
_FENCE_MARKER = re.compile(r"\[(BEGIN|END) DATA [0-9a-f]{8}:")


def cache_key(judge: str, request: JudgeRequest) -> str:
    """What makes two requests the same question to the same judge."""
    parts = [
        judge,
        request.task,
        request.system,
        _FENCE_MARKER.sub(r"[\1 DATA:", request.prompt),
        request.max_tokens,
        list(request.stop),
    ]
    if request.schema is not None:
        parts.append(json.dumps(request.schema, sort_keys=True))
    raw = json.dumps(parts, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()


class ResponseCache:
    """Replies by :func:`cache_key`, in a SQLite file (created on first use)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._ready = False
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            ensure_private(self.path)  # prompts hold turn text: owner-only
            conn = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise ConfigError(f"cannot open the response cache {self.path}: {exc}") from exc
        try:
            if not self._ready:
                with self._lock:
                    conn.execute("PRAGMA journal_mode=WAL")
                    conn.executescript(_SCHEMA)
                    self._ready = True
            yield conn
        finally:
            conn.close()

    def get(self, key: str) -> JudgeResponse | None:
        with self._connect() as conn:
            row = conn.execute("SELECT text, model FROM replies WHERE key = ?", (key,)).fetchone()
        return None if row is None else JudgeResponse(text=row[0], model=row[1], cached=True)

    def put(self, key: str, response: JudgeResponse) -> None:
        with self._connect() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?)",
                (
                    key,
                    response.text,
                    response.model,
                    response.prompt_tokens,
                    response.completion_tokens,
                ),
            )

    def __len__(self) -> int:
        with self._connect() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM replies").fetchone()[0])


class CachingJudge:
    """``judge`` with a :class:`ResponseCache` in front of its temperature-0 calls."""

    def __init__(self, judge: Judge, cache: ResponseCache) -> None:
        self.judge = judge
        self.cache = cache

    @property
    def name(self) -> str:
        return self.judge.name

    @property
    def capabilities(self) -> Capabilities:
        """The cached judge's (a cache adds no network and needs no key)."""
        return capabilities_of(self.judge)

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        if request.temperature != 0.0:
            return await self.judge.complete(request)
        key = cache_key(self.name, request)
        hit = await asyncio.to_thread(self.cache.get, key)
        if hit is not None:
            return hit
        response = await self.judge.complete(request)
        await asyncio.to_thread(self.cache.put, key, response)
        return response

    async def aclose(self) -> None:
        """Close the wrapped judge's resources, if it holds any."""
        close = getattr(self.judge, "aclose", None)
        if close is not None:
            await close()
