"""Judge tests see no credentials: not from the environment, not from a config directory."""

from __future__ import annotations

from pathlib import Path

import pytest

#: Credential and routing variables the SDKs read beyond the four the root conftest clears.
_SDK_ENV = (
    "OPENAI_ADMIN_KEY",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_CUSTOM_HEADERS",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CONFIG_DIR",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_IDENTITY_TOKEN",
    "ANTHROPIC_IDENTITY_TOKEN_FILE",
    "ANTHROPIC_FEDERATION_RULE_ID",
    "ANTHROPIC_ORGANIZATION_ID",
)


@pytest.fixture(autouse=True)
def _isolated_sdk_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No SDK credential variable is set and HOME is empty (the Anthropic SDK reads profiles)."""
    for var in _SDK_ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
