"""Plug-ins from installed packages, found through entry points and imported on first use.

Each extension point has one entry-point group (``guardrail.judges``, ``guardrail.scorers``,
``guardrail.actions``). An entry point's *name* is what it provides (a judge prefix, a scorer
method, an action name) and its *value* a module (or ``module:attribute``) whose import
registers it, e.g. in a plug-in's ``pyproject.toml``::

    [project.entry-points."guardrail.judges"]
    acme = "acme_guardrail.judge"

Nothing is imported until a name is asked for that is not registered yet.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from guardrail.exceptions import ConfigError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

_loaded: set[tuple[str, str]] = set()


def _entry_points(group: str) -> list[EntryPoint]:
    from importlib.metadata import entry_points

    return list(entry_points(group=group))


def plugin_names(group: str) -> tuple[str, ...]:
    """The names installed packages provide in ``group`` (nothing is imported)."""
    return tuple(dict.fromkeys(ep.name for ep in _entry_points(group)))


def load_plugin(group: str, name: str) -> bool:
    """Import the plug-in that provides ``name`` in ``group`` (once); whether there is one.

    A plug-in that fails to import is a ``ConfigError`` naming it, not a silent miss.
    """
    found = [ep for ep in _entry_points(group) if ep.name == name]
    for ep in found:
        if (group, ep.value) in _loaded:
            continue
        _loaded.add((group, ep.value))
        try:
            module, _, attribute = ep.value.partition(":")
            loaded = importlib.import_module(module.strip())
            if attribute:
                getattr(loaded, attribute.strip())
        except Exception as exc:
            raise ConfigError(
                f"plug-in {name!r} ({group} entry point {ep.value!r}) failed to load: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
    return bool(found)


def load_plugins(group: str) -> None:
    """Import every plug-in of ``group`` (for tables that list all of them)."""
    for name in plugin_names(group):
        load_plugin(group, name)
