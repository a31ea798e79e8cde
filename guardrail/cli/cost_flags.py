"""The flags that choose how much a MetaRAG answer costs, shared by ``check`` and ``eval``."""

from __future__ import annotations

import argparse


def add_cost_flags(parser: argparse.ArgumentParser, *, default_note: str) -> None:
    """``--protocol`` and ``--cascade``; ``default_note`` says where unset values come from."""
    parser.add_argument(
        "--protocol",
        choices=["paper", "factoid", "answer"],
        default=None,
        help=f"metarag: judge calls per answer: paper, factoid or answer ({default_note}; "
        "see Concepts: scoring in the documentation)",
    )
    parser.add_argument(
        "--cascade",
        action="store_const",
        const=True,
        default=None,
        help="metarag: the offline verifier screens each factoid first; those it is confident "
        "are supported skip the LLM (cut-off: the policy's, else the packaged calibrated one)",
    )
