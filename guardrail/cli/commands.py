"""The table of ``guardrail`` subcommands: name, module and one-line summary.

``guardrail --help`` is built from this table alone; each command's module takes its summary
from here when it registers its parser, so the two never differ.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """A subcommand: the module whose ``register`` adds it, and its line in ``--help``."""

    module: str
    summary: str


#: The subcommands, in ``--help`` order.
COMMANDS: dict[str, Command] = {
    "check": Command("guardrail.cli.check", "score one answer against its retrieved context"),
    "audit": Command("guardrail.cli.audit", "work with the hash-chained audit log"),
    "policy": Command("guardrail.cli.policy", "work with policy files"),
    "schema": Command("guardrail.cli.policy", "print the JSON Schema of policy files"),
    "review": Command("guardrail.cli.review", "list, claim and resolve escalated cases"),
    "serve": Command("guardrail.cli.serve", "run the HTTP API and the review web page"),
    "proxy": Command("guardrail.cli.proxy", "guard an OpenAI-compatible server as a proxy"),
    "eval": Command("guardrail.cli.eval", "score a labelled dataset and report P/R/F1"),
    "calibrate": Command(
        "guardrail.cli.calibrate", "tune a policy threshold on a labelled dataset"
    ),
    "probe": Command("guardrail.cli.probe", "test a chatbot with questions derived from facts"),
    "propose-facts": Command(
        "guardrail.cli.probe", "propose a fact file for `probe` from a folder of documents"
    ),
    "report": Command(
        "guardrail.cli.report", "an HTML/JSON report of an audit log and its review queue"
    ),
    "test": Command("guardrail.cli.test_cases", "run a policy's test cases (JUnit XML for CI)"),
    "rescore": Command(
        "guardrail.cli.rescore", "re-score an audit or chat log under a policy (--ray to spread)"
    ),
}
