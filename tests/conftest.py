"""Suite-wide fixtures: no test may reach the network; shared data is optional."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from guardrail.testing import no_network

SHARED_DATA = Path(
    os.environ.get("GUARDRAIL_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)


@pytest.fixture(autouse=True)
def _block_network() -> Iterator[None]:
    """Any connection to a non-loopback address fails the test."""
    with no_network():
        yield


@pytest.fixture(autouse=True)
def _no_api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never pick up a developer's real credentials."""
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def _work_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every test in a scratch directory, so default file names never land in the repo."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


@pytest.fixture
def shared_data() -> Path:
    """The ../shared/data folder; skips the test when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared benchmark data not found at {SHARED_DATA}")
    return SHARED_DATA
