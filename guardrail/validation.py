"""The base of every settings model, and validation errors as one readable line.

Settings are pydantic models built from Python, from a policy file and from CLI flags. Built
from Python (``RetryPolicy(max_attempts=0)``), a bad value raises
:class:`~guardrail.exceptions.ConfigError`, like every other configuration mistake. Validated
as data (``model_validate``, which the policy loader and the CLI use), the same failure stays a
pydantic ``ValidationError`` with its full location, and the caller words it: the loader as a
:class:`~guardrail.exceptions.PolicyError` with key path and line, the CLI naming the flag.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from guardrail.exceptions import ConfigError

if TYPE_CHECKING:
    from typing_extensions import Self


def error_line(exc: ValidationError, names: Mapping[str, str] | None = None) -> str:
    """``exc`` as one line: ``where: problem`` for the first error, plus how many more.

    ``names`` renames a top-level field in the message (a CLI passes ``{"k": "--k"}``).
    """
    errors = exc.errors(include_url=False)
    first = errors[0]
    loc = [str(part) for part in first["loc"]]
    if loc and names and loc[0] in names:
        loc[0] = names[loc[0]]
    where = ".".join(loc)
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown setting"
    elif first["type"] not in ("value_error", "missing") and "input" in first:
        shown = repr(first["input"])
        message += f", got {shown if len(shown) <= 60 else shown[:57] + '...'}"
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {message}{more}" if where else f"{message}{more}"


#: How many Settings validations are running in this context: only the outermost converts.
_DEPTH: ContextVar[int] = ContextVar("guardrail_settings_depth", default=0)


class Settings(BaseModel):
    """Strict, frozen, closed: a typo is an error, ``"2"`` is not 2, and values never change.

    Constructing one with a bad value raises :class:`ConfigError` (one line, naming the
    field) instead of pydantic's multi-line ``ValidationError``.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)

    def __init__(self, **data: Any) -> None:
        depth = _DEPTH.get()
        token = _DEPTH.set(depth + 1)
        try:
            super().__init__(**data)
        except ValidationError as exc:
            if depth:  # a part of a larger document: let the outer validation place the error
                raise
            raise ConfigError(f"{type(self).__name__}: {error_line(exc)}") from None
        finally:
            _DEPTH.reset(token)

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Self:
        """Validate data; a failure is pydantic's ``ValidationError`` (located, not worded)."""
        token = _DEPTH.set(_DEPTH.get() + 1)
        try:
            return super().model_validate(obj, **kwargs)
        finally:
            _DEPTH.reset(token)
