"""``guardrail check``: score one answer (placeholder until the scorer lands)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("check", help="score one answer against its retrieved context")
    p.set_defaults(func=lambda args: 0)
