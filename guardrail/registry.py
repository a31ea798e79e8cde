"""One registry shape for every extension point: judges, scorers, actions and verifiers.

A :class:`Registry` maps names to values, each entry carrying :class:`Capabilities` that say
what it can do — whether it works offline, which environment variable holds the key it needs,
whether it can stream, whether it reads a model file — the way a provider describes itself.
Decisions read capabilities, never names: nothing outside a registry compares a judge's name.

Installed packages add entries through an entry-point group (:mod:`guardrail.plugins`); a
plug-in module is imported only when a name it provides is asked for and is not registered
yet — never at import time, never to build a help text.

Extending: call the extension point's ``register_*`` function (:func:`~guardrail.judges.
registry.register_judge`, :func:`~guardrail.scoring.registry.register_scorer`,
:func:`~guardrail.actions.register_action`, :func:`~guardrail.judges.local.
register_verifier`), with ``capabilities=`` where the defaults (online, no key, no streaming)
are not right.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from guardrail.exceptions import ConfigError
from guardrail.plugins import load_plugin, plugin_names

__all__ = ["Capabilities", "Entry", "Registry", "capabilities_of"]

T = TypeVar("T")


@dataclass(frozen=True)
class Capabilities:
    """What an entry can do (defaults: the cautious answer)."""

    #: Runs with no network and no key (the offline judge, the test doubles).
    offline: bool = False
    #: Environment variables that can hold the key it needs (the first is the one to name in
    #: an error); empty when it needs none.
    key_env: tuple[str, ...] = ()
    #: Environment variable that, when set, points it at a server that may need no key.
    key_optional_with: str | None = None
    #: Can stream its replies (takes ``stream=``).
    streams: bool = False
    #: Is a chat model that can answer questions itself (``guardrail probe --chatbot``).
    chat_model: bool = False
    #: Reads a model file (``judge_model`` / ``model_path`` applies).
    reads_model: bool = False
    #: The languages it verifies (ISO 639-1 codes); empty when it does not say (a policy's
    #: ``languages.judge_languages`` then names them, English when it does not).
    languages: tuple[str, ...] = ()
    #: Whether it compares an answer with passages in another language (``None``: not said;
    #: an online model is taken to, an offline one not).
    cross_lingual: bool | None = None


#: What an entry declares when it says nothing.
DEFAULT_CAPABILITIES = Capabilities()


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One registered name."""

    name: str
    value: T
    capabilities: Capabilities = DEFAULT_CAPABILITIES
    #: How it is written in help texts (``""``: not listed).
    usage: str = ""


class Registry(Generic[T]):
    """Names -> entries for one extension point (see the module docstring)."""

    def __init__(self, kind: str, group: str | None = None) -> None:
        #: What the entries are, for error messages ("judge prefix", "scorer method", ...).
        self.kind = kind
        #: The entry-point group installed plug-ins use (``None``: none).
        self.group = group
        self._entries: dict[str, Entry[T]] = {}

    def register(
        self,
        name: str,
        value: T,
        *,
        capabilities: Capabilities = DEFAULT_CAPABILITIES,
        usage: str | None = None,
        replace: bool = False,
    ) -> Entry[T]:
        """Add ``name``; a name is registered once unless ``replace`` is true."""
        if name in self._entries and not replace:
            raise ConfigError(f"{self.kind} {name!r} is already registered")
        entry = Entry(name, value, capabilities, name if usage is None else usage)
        self._entries[name] = entry
        return entry

    def find(self, name: str) -> Entry[T] | None:
        """The entry for ``name``, importing the plug-in that provides it if need be."""
        entry = self._entries.get(name)
        if entry is None and self.group is not None and load_plugin(self.group, name):
            entry = self._entries.get(name)
        return entry

    def entry(self, name: str) -> Entry[T]:
        """The entry for ``name``; ``ConfigError`` naming the known ones when there is none."""
        entry = self.find(name)
        if entry is None:
            raise ConfigError(f"unknown {self.kind} {name!r}; expected one of {self.names()}")
        return entry

    def get(self, name: str) -> T:
        return self.entry(name).value

    def registered(self) -> tuple[str, ...]:
        """The names registered so far (no plug-in is imported)."""
        return tuple(self._entries)

    def names(self) -> tuple[str, ...]:
        """The registered names, then those installed plug-ins provide (nothing imported)."""
        plugins = plugin_names(self.group) if self.group is not None else ()
        return tuple(dict.fromkeys([*self._entries, *plugins]))

    def entries(self) -> Iterator[Entry[T]]:
        """The registered entries, in registration order."""
        return iter(list(self._entries.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._entries


def capabilities_of(obj: object) -> Capabilities:
    """What an instance (a judge, a verifier) declares in its ``capabilities`` attribute; the
    cautious default when it declares none."""
    declared = getattr(obj, "capabilities", None)
    return declared if isinstance(declared, Capabilities) else DEFAULT_CAPABILITIES
