"""What a test does when a real part it needs (a browser, a model server) is missing here."""

from __future__ import annotations

import os

import pytest


def unavailable(kind: str, reason: str) -> None:
    """Skip with ``reason``; under CI=true fail instead, since CI's set-up installs the part
    (``scripts/ci_setup.sh``) and a skip there would hide the gap."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{kind} test cannot run under CI: {reason} (run scripts/ci_setup.sh)")
    pytest.skip(reason)
