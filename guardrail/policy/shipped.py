"""The policies that ship inside the package, for installs without a clone.

The files live in the repository's ``policies/`` folder; ``guardrail/policies`` points there,
so the wheel carries them as package data (``default``, ``finance``, ``legal-aid`` and the JSON
Schema). ``guardrail policy init`` copies one into a working directory, where every command
of the documentation (``--policy policies/default.yaml``) then finds it.
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

from guardrail.exceptions import ConfigError

if TYPE_CHECKING:
    from importlib.abc import Traversable  # importlib.resources.abc from Python 3.11 on

#: The JSON Schema's file name beside the policies (their first line refers to it).
SCHEMA_FILE = "policy.schema.json"


def _folder() -> Traversable:
    return resources.files("guardrail").joinpath("policies")


def shipped_policy_names() -> list[str]:
    """The names of the shipped policies (``default`` first), read from the package (a
    policy's test cases, ``NAME.cases.yaml``, are not a policy)."""
    names = sorted(
        p.name[: -len(".yaml")]
        for p in _folder().iterdir()
        if p.name.endswith(".yaml") and not p.name.endswith(".cases.yaml")
    )
    return sorted(names, key=lambda n: n != "default")


def shipped_file_text(file_name: str) -> str:
    """The text of one shipped file (a policy's ``NAME.yaml`` or the schema)."""
    try:
        text: str = _folder().joinpath(file_name).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"the package holds no {file_name} ({exc.strerror or exc})") from None
    return text


def shipped_policy_text(name: str = "default") -> str:
    """The YAML of the shipped policy ``name``; a :class:`ConfigError` names the choices."""
    names = shipped_policy_names()
    if name not in names:
        raise ConfigError(f"no shipped policy {name!r}; one of: {', '.join(names)}")
    return shipped_file_text(f"{name}.yaml")
