"""The case file of ``guardrail test``: questions, answers, contexts and what must happen.

A case file is YAML::

    policy: default.yaml          # optional; relative to the case file
    cases:
      - name: paracetamol-dose-contradicted
        question: What is the maximum daily dose of paracetamol?
        answer: Adults can take up to 8 g of paracetamol a day.
        contexts: ["Adults should not take more than 4 g of paracetamol in 24 hours."]
        expect:
          topic: healthcare
          action: escalate
          flagged: true

``expect`` must say something (a case that expects nothing cannot fail, so it is refused);
every key given is checked, the rest are free. ``regenerated`` is the answer the chatbot gives
when the policy asks it to regenerate (without it, a regeneration request has no new answer).
Models are ``extra="forbid"``: a misspelt key is an error naming the case, not a check that
silently does not run.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from guardrail.exceptions import ConfigError
from guardrail.models import ActionName

__all__ = ["Case", "CaseFile", "Expect", "load_cases", "policy_path"]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Expect(_Strict):
    """What must happen to the turn. Every field given is checked."""

    topic: str | None = Field(default=None, description="the topic whose rule applied")
    action: ActionName | None = Field(default=None, description="the strongest action taken")
    actions_include: list[ActionName] = Field(
        default_factory=list, description="actions that must all be among those taken"
    )
    flagged: bool | None = None
    scored: bool | None = Field(default=None, description="false: the answer could not be scored")
    queue: str | None = Field(default=None, description="the review queue it was escalated to")
    reason_contains: list[str] = Field(
        default_factory=list, description="texts the decision's reason must contain"
    )
    score_at_least: float | None = Field(default=None, ge=0.0, le=1.0)
    score_below: float | None = Field(default=None, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _says_something(self) -> Expect:
        if not self.model_dump(exclude_defaults=True):
            raise ValueError("expect is empty: a case must say what has to happen")
        return self


class Case(_Strict):
    """One turn and its expectation."""

    name: str = Field(min_length=1)
    question: str
    answer: str
    contexts: list[str] = Field(default_factory=list)
    regenerated: str | None = Field(
        default=None, description="the answer returned when the policy asks to regenerate"
    )
    expect: Expect


class CaseFile(_Strict):
    """A case file: the policy it tests (optional) and its cases."""

    policy: str | None = Field(default=None, description="policy path, relative to this file")
    cases: list[Case] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_names(self) -> CaseFile:
        seen: set[str] = set()
        for case in self.cases:
            if case.name in seen:
                raise ValueError(f"two cases are named {case.name!r}")
            seen.add(case.name)
        return self


def load_cases(path: str | Path) -> CaseFile:
    """Read and validate a case file; errors name the file and the key path."""
    source = Path(path)
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read case file ({exc.strerror or exc})") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML ({exc})") from exc
    try:
        return CaseFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(
            f"{source}: {where}: {first['msg']} ({exc.error_count()} error(s))"
        ) from None


def policy_path(cases_file: str | Path, cases: CaseFile) -> Path | None:
    """The policy the case file names, resolved against the file's folder."""
    if cases.policy is None:
        return None
    return (Path(cases_file).resolve().parent / cases.policy).resolve()
