"""One error tree for the whole package.

Decisions (pass, cite, abstain, escalate) are values; exceptions are for failures only::

    GuardrailError                  base of everything raised on purpose
    ├── ConfigError                 the operator's fault: bad settings, CLI input, policy or
    │   │                           judge spec (exit 2 in the CLI; 500 from a server)
    │   └── PolicyError             a policy file is invalid: carries file and key path
    ├── RequestError                the client's fault: a request a server refuses (4xx,
    │                               ``status``), e.g. a malformed chat completion request
    ├── JudgeError                  a judge call failed after the runner gave up
    │   ├── JudgeTimeout            the call exceeded its per-call timeout      (retryable)
    │   ├── JudgeRateLimited        HTTP 429 / provider overload                (retryable)
    │   ├── JudgeServerError        HTTP 5xx / connection dropped               (retryable)
    │   ├── JudgeRequestError       4xx other than 429, auth, bad model         (not retryable)
    │   └── JudgeBugError           the judge raised something else: a bug in it or its
    │                               plug-in, logged with its traceback          (not retryable)
    ├── ScoringError                a scorer could not produce a report; carries the calls made
    ├── EscalationError             a sink refused or lost a case
    └── AuditError                  the audit log could not be written or read
        └── AuditIntegrityError     the hash chain is broken: names the first bad record
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from guardrail.models import JudgeCall


class GuardrailError(Exception):
    """Base class of every error this package raises on purpose."""


class ConfigError(GuardrailError):
    """Invalid configuration or user input."""


class PolicyError(ConfigError):
    """A policy file failed validation.

    The message names the file, the key path and the problem, on one line.
    """

    def __init__(self, file: str, key_path: str, problem: str) -> None:
        self.file = file
        self.key_path = key_path
        self.problem = problem
        where = f"{file}: {key_path}" if key_path else file
        super().__init__(f"{where}: {problem}")


class RequestError(GuardrailError):
    """A client's request is invalid: the server answers ``status`` (4xx) with this message.

    Kept apart from :class:`ConfigError` (the operator's configuration) so a server never
    blames the client for its own settings, nor the other way round.
    """

    def __init__(self, message: str, *, status: int = 400) -> None:
        if not 400 <= status < 500:
            raise ValueError(f"a request error is a 4xx status, got {status}")
        super().__init__(message)
        self.status = status


class JudgeError(GuardrailError):
    """A judge call failed. ``retryable`` tells the runner whether another try may succeed."""

    retryable: bool = False

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class JudgeTimeout(JudgeError):
    retryable = True


class JudgeRateLimited(JudgeError):
    retryable = True


class JudgeServerError(JudgeError):
    retryable = True


class JudgeRequestError(JudgeError):
    retryable = False


class JudgeBugError(JudgeError):
    """A judge raised an exception that is not a judge failure (a bug in the judge or its
    plug-in). Not retried; the turn ends by the policy's ``on_error`` rule, naming it."""

    retryable = False


class ScoringError(GuardrailError):
    """A scorer could not finish. ``calls`` holds every judge call made before it gave up."""

    def __init__(self, message: str, *, calls: list[JudgeCall] | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.calls: list[JudgeCall] = list(calls or [])
        self.extra = extra


class EscalationError(GuardrailError):
    """An escalation sink could not accept a case."""


class AuditError(GuardrailError):
    """The audit log could not be written or read."""


class AuditIntegrityError(AuditError):
    """The audit hash chain is broken at ``line`` (1-based)."""

    def __init__(self, message: str, *, line: int) -> None:
        super().__init__(message)
        self.line = line
