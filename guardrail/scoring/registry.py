"""Scorers by method: each method registers its settings model and a factory, once.

``register_scorer(method, SettingsModel, factory)`` is all a scorer needs to be named in a
policy (``scorer: {method: ...}``) and on the command line (``--method``): the policy's
scorer-settings union, the list of methods and the CLI choices are all read from this table.
The built-in methods (``metarag``, ``rt4chart``) are registered in
:mod:`guardrail.scoring.settings` exactly like a plug-in.

* ``SettingsModel`` is a :class:`~guardrail.scoring.settings.ScorerWiring` subclass (any
  pydantic model with the wiring fields) with a
  field ``method: Literal["<method>"]`` (the union's discriminator);
* ``factory(settings, parts)`` builds the scorer (a
  :class:`~guardrail.scoring.base.ScorerBase`: implement ``score``, get ``score_sync``); ``parts``
  (:class:`ScorerParts`) gives it the judges its specs name, the threshold and the localizer.
  A factory may be given as ``"module:function"`` (imported on first use);
* a scorer declares cascade support with ``supports_cascade = True``; a topic's ``cascade``
  is accepted only for methods whose settings have a ``cascade`` field.

Installed packages add methods through the ``guardrail.scorers`` entry-point group (see
:mod:`guardrail.plugins`): a plug-in is imported only when a policy, a command line or a call
names its method (:func:`scorer_entry`, :func:`load_named_method`) — never to list the
methods, print help or build the policy schema.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol, Union, overload

from pydantic import BaseModel

from guardrail.exceptions import ConfigError
from guardrail.registry import Registry

if TYPE_CHECKING:
    from guardrail.judges.base import Judge
    from guardrail.localize.model import SpanLocalizer
    from guardrail.scoring.base import ScorerBase

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
    settings: type[BaseModel]
    factory: ScorerFactory | str

    def build(self, settings: BaseModel, parts: ScorerParts) -> ScorerBase:
        factory = self.factory
        if isinstance(factory, str):
            module, _, name = factory.partition(":")
            factory = getattr(importlib.import_module(module), name)
        return factory(settings, parts)


#: The scorer methods a policy can name (``scorer: {method: ...}``).
SCORERS: Registry[ScorerEntry] = Registry("scorer method", ENTRY_POINT_GROUP)
_listeners: list[Callable[[], None]] = []


def register_scorer(
    method: str,
    settings: type[BaseModel],
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
    SCORERS.register(method, ScorerEntry(method, settings, factory), replace=replace)
    for listener in list(_listeners):
        listener()


def on_register(listener: Callable[[], None]) -> None:
    """Call ``listener`` after every later registration (models built from the table use it
    to rebuild)."""
    _listeners.append(listener)


def scorer_entry(method: str) -> ScorerEntry:
    """The registration of ``method`` (its plug-in imported if need be); ``ConfigError``
    naming the known ones if none."""
    entry = SCORERS.find(method)
    if entry is None:
        raise ConfigError(f"unknown scorer method {method!r}; expected one of {methods()}")
    return entry.value


def load_named_method(data: Any) -> None:
    """Before validating a scorer block (or a policy holding one): import the plug-in of the
    method it names, if that method is not registered yet. Unknown methods are left to the
    validation, which names the known ones."""
    block = data.get("scorer", data) if isinstance(data, dict) else None
    method = block.get("method") if isinstance(block, dict) else None
    if isinstance(method, str) and method not in SCORERS:
        SCORERS.find(method)


def methods() -> tuple[str, ...]:
    """Every method: the registered ones (built-ins first), then those installed plug-ins
    provide (nothing is imported)."""
    return SCORERS.names()


def _models() -> dict[str, type[BaseModel]]:
    return {entry.name: entry.value.settings for entry in SCORERS.entries()}


class _LiveModels(Mapping[str, "type[BaseModel]"]):
    """method -> settings model of the registered methods, kept up to date (read-only)."""

    def __getitem__(self, method: str) -> type[BaseModel]:
        return _models()[method]

    def __iter__(self) -> Iterator[str]:
        return iter(_models())

    def __len__(self) -> int:
        return len(_models())


#: method -> settings model, kept up to date (read-only).
SETTINGS_MODELS = _LiveModels()


class MethodNames(Sequence[str]):
    """The methods as a live sequence (e.g. for ``argparse`` choices; nothing imported)."""

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

    def __contains__(self, method: object) -> bool:
        return isinstance(method, str) and (method in SCORERS or SCORERS.find(method) is not None)

    def __repr__(self) -> str:
        return repr(methods())


def method_of(value: Any) -> Any:
    """The ``method`` of a scorer block (``metarag``, the first registered, when absent)."""
    if isinstance(value, dict):
        return value.get("method", next(iter(SCORERS.registered())))
    return getattr(value, "method", None)


def settings_union() -> Any:
    """The policy's ``scorer`` type: the registered settings models, told apart by method
    (a plug-in's joins once its method is named: :func:`load_named_method`)."""
    from pydantic import Discriminator, Tag

    tagged = tuple(Annotated[model, Tag(m)] for m, model in _models().items())
    return Annotated[
        Union[tagged],  # noqa: UP007 - a union built at run time
        Discriminator(
            method_of,
            custom_error_type="unknown_method",
            custom_error_message=f"unknown scorer method; expected one of {' or '.join(methods())}",
        ),
    ]
