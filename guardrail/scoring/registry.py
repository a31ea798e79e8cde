"""Scorers by method: each method registers its settings model and a factory, once.

``register_scorer(method, SettingsModel, factory)`` is all a scorer needs to be named in a
policy (``scorer: {method: ...}``) and on the command line (``--method``): the policy's
scorer-settings union, the list of methods and the CLI choices are all read from this table.
The built-in methods (``metarag``, ``rt4chart``) are registered in
:mod:`guardrail.scoring.settings` exactly like a plug-in.

* ``SettingsModel`` is a :class:`~guardrail.scoring.settings.ScorerWiring` subclass with a
  field ``method: Literal["<method>"]`` (the union's discriminator);
* ``factory(settings, parts)`` builds the scorer (a
  :class:`~guardrail.scoring.base.ScorerBase`: implement ``score``, get ``score_sync``); ``parts``
  (:class:`ScorerParts`) gives it the judges its specs name, the threshold and the localizer.
  A factory may be given as ``"module:function"`` (imported on first use);
* a scorer declares cascade support with ``supports_cascade = True``; a topic's ``cascade``
  is accepted only for methods whose settings have a ``cascade`` field.

Installed packages add methods through the ``guardrail.scorers`` entry-point group (see
:mod:`guardrail.plugins`); they are imported when the method list is first read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol, Union, overload

from guardrail.exceptions import ConfigError
from guardrail.plugins import load_plugins

if TYPE_CHECKING:
    from guardrail.judges.base import Judge
    from guardrail.localize.model import SpanLocalizer
    from guardrail.scoring.base import ScorerBase
    from guardrail.scoring.settings import ScorerWiring

ENTRY_POINT_GROUP = "guardrail.scorers"


@dataclass(frozen=True)
class ScorerParts:
    """What a scorer factory gets besides its settings."""

    #: The judge a spec names (``None``: the settings' main ``judge``), built once per spec
    #: and wrapped in the response cache when the settings ask for one.
    judge: Callable[[str | None], Judge]
    #: The scorer's default flagging threshold.
    threshold: float
    #: The span localizer to pass on (``"packaged"``: the built-in one; ``None``: none).
    localizer: SpanLocalizer | Literal["packaged"] | None


class ScorerFactory(Protocol):
    def __call__(self, settings: Any, parts: ScorerParts, /) -> ScorerBase: ...


@dataclass(frozen=True)
class ScorerEntry:
    method: str
    settings: type[ScorerWiring]
    factory: ScorerFactory | str

    def build(self, settings: ScorerWiring, parts: ScorerParts) -> ScorerBase:
        factory = self.factory
        if isinstance(factory, str):
            module, _, name = factory.partition(":")
            factory = getattr(importlib.import_module(module), name)
        return factory(settings, parts)


_SCORERS: dict[str, ScorerEntry] = {}
_MODELS: dict[str, type[ScorerWiring]] = {}
_listeners: list[Callable[[], None]] = []
_plugins_loaded = False


def register_scorer(
    method: str,
    settings: type[ScorerWiring],
    factory: ScorerFactory | str,
    *,
    replace: bool = False,
) -> None:
    """Make ``method`` a scorer: policies validate its block with ``settings`` and
    :func:`~guardrail.scoring.factory.build_scorer` builds it with ``factory``."""
    field = settings.model_fields.get("method")
    if field is None or field.default != method:
        raise ConfigError(
            f"{settings.__name__} must declare method: Literal[{method!r}] = {method!r}"
        )
    if method in _SCORERS and not replace:
        raise ConfigError(f"scorer method {method!r} is already registered")
    _SCORERS[method] = ScorerEntry(method, settings, factory)
    _MODELS[method] = settings
    for listener in list(_listeners):
        listener()


def on_register(listener: Callable[[], None]) -> None:
    """Call ``listener`` after every later registration (models built from the table use it
    to rebuild)."""
    _listeners.append(listener)


def _with_plugins() -> dict[str, ScorerEntry]:
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        load_plugins(ENTRY_POINT_GROUP)
    return _SCORERS


def scorer_entry(method: str) -> ScorerEntry:
    """The registration of ``method``; ``ConfigError`` naming the known ones if none."""
    table = _SCORERS if method in _SCORERS else _with_plugins()
    if method not in table:
        raise ConfigError(f"unknown scorer method {method!r}; expected one of {methods()}")
    return table[method]


def methods() -> tuple[str, ...]:
    """Every registered method, in registration order (the built-ins first)."""
    return tuple(_with_plugins())


#: method -> settings model, kept up to date (read-only).
SETTINGS_MODELS = MappingProxyType(_MODELS)


class MethodNames(Sequence[str]):
    """The registered methods as a live sequence (e.g. for ``argparse`` choices)."""

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return methods()[index]

    def __len__(self) -> int:
        return len(methods())

    def __iter__(self) -> Iterator[str]:
        return iter(methods())

    def __repr__(self) -> str:
        return repr(methods())


def method_of(value: Any) -> Any:
    """The ``method`` of a scorer block (``metarag``, the first registered, when absent)."""
    if isinstance(value, dict):
        return value.get("method", next(iter(_SCORERS)))
    return getattr(value, "method", None)


def settings_union(*, plugins: bool = True) -> Any:
    """The policy's ``scorer`` type: the registered settings models (with the installed
    plug-ins' unless ``plugins`` is false), told apart by method."""
    from pydantic import Discriminator, Tag

    table = _with_plugins() if plugins else _SCORERS
    tagged = tuple(Annotated[e.settings, Tag(m)] for m, e in table.items())
    return Annotated[
        Union[tagged],  # noqa: UP007 - a union built at run time
        Discriminator(
            method_of,
            custom_error_type="unknown_method",
            custom_error_message=f"unknown scorer method; expected {' or '.join(_SCORERS)}",
        ),
    ]
