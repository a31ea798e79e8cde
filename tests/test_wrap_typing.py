"""``Guard.wrap`` keeps the wrapped function's parameters for type checkers (mypy, strict)."""

from __future__ import annotations

from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api")

SNIPPET = """
from typing import Any, Awaitable
from typing_extensions import assert_type
from guardrail import Guard, GuardResult

def typed(guard: Guard) -> None:
    def answer(question: str, user_id: int, *, lang: str = "en") -> dict[str, Any]:
        return {"answer": "a", "contexts": []}

    async def aanswer(question: str, top_k: int) -> dict[str, Any]:
        return {"answer": "a", "contexts": []}

    wrapped = guard.wrap(answer)
    assert_type(wrapped("q", 7, lang="de"), GuardResult)
    awrapped = guard.wrap(aanswer)
    assert_type(awrapped("q", 3), Awaitable[GuardResult])
    wrapped("q", "not an int")  # line 17: must be an error
    awrapped("q")  # line 18: must be an error
"""


def test_wrap_keeps_the_signature_for_mypy(tmp_path: Path) -> None:
    """Right calls type-check with GuardResult results; wrong arguments are mypy errors."""
    path = tmp_path / "wrap_snippet.py"
    path.write_text(SNIPPET)
    out, err, _status = api.run(
        ["--strict", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), str(path)]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert [int(line.split(":")[1]) for line in errors] == [17, 18], out + err
    assert "Argument 2" in errors[0] and "Too few arguments" in errors[1]
