"""A small RAG chatbot guarded by guardrail — runs offline, no API key.

The chatbot's answers are SCRIPTED (there is no language model here): some are faithful to
the retrieved documents, some contain unsupported claims, so you can watch the guard pass,
cite, regenerate, abstain and escalate them under the default policy with the offline judge.

    python examples/demo.py [--out DIR]

Writes the audit log and the review queue to DIR (default ./guardrail-demo). Each run starts
afresh: it replaces the files a previous run wrote there, so the counts below are always the
same (7 audit records, 3 review cases).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.text import Text
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

from guardrail.guard import Guard
from guardrail.models import GuardResult
from guardrail.render import highlighted_text, score_style, topic_text

HERE = Path(__file__).resolve().parent
POLICY = HERE.parent / "policies" / "default.yaml"

# question -> (first answer, answer after a stricter regeneration instruction)
SCRIPT: dict[str, tuple[str, str]] = {
    "When is the city library open on Saturdays?": (
        "The city library is open on Saturdays from 10:00 to 14:00.",
        "The city library is open on Saturdays from 10:00 to 14:00.",
    ),
    "Can I renew my library books online?": (
        "Yes, loans can be renewed online up to five times.",
        "Loans can be renewed up to two times, in person or by phone.",
    ),
    "Which painkiller is the first choice during pregnancy?": (
        "Paracetamol is generally considered the first choice for pain relief during pregnancy.",
        "Paracetamol is generally considered the first choice for pain relief during pregnancy.",
    ),
    "Can pregnant women take ibuprofen for back pain?": (
        "Yes, ibuprofen is safe throughout pregnancy.",
        "Ibuprofen is safe in the first two trimesters of pregnancy.",
    ),
    "Do LGBTQ+ refugees automatically receive protection in country X?": (
        "Yes, LGBTQ+ refugees automatically receive protection in country X.",
        "LGBTQ+ refugees automatically receive protection after arrival in country X.",
    ),
    "Can asylum seekers work while their application is pending?": (
        "Asylum seekers can start working immediately after they arrive.",
        "Asylum seekers may apply for a work permit once their application has been pending "
        "for six months without a first decision.",
    ),
    "How many hours a week can I work on a student visa?": (
        "Students holding a student visa may work up to 20 hours per week during term time.",
        "Students holding a student visa may work up to 20 hours per week during term time.",
    ),
}


class Retriever:
    """TF-IDF over the paragraphs of examples/demo_docs (a stand-in for a vector store)."""

    def __init__(self, folder: Path) -> None:
        self.passages = [
            p.strip()
            for doc in sorted(folder.glob("*.md"))
            for p in re.split(r"\n\s*\n", doc.read_text(encoding="utf-8"))
            if p.strip() and not p.lstrip().startswith("#")
        ]
        self.vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True)
        self.matrix = self.vectorizer.fit_transform(self.passages)

    def __call__(self, question: str, k: int = 2) -> list[str]:
        sims = cosine_similarity(self.vectorizer.transform([question]), self.matrix)[0]
        ranked = sims.argsort()[::-1][:k]
        return [self.passages[i] for i in ranked if sims[i] > 0]


def make_chatbot(retriever: Retriever):
    """The answer function: question -> (answer, contexts); regenerable via the instruction."""

    def chatbot(question: str, guardrail_instruction: str | None = None) -> tuple[str, list[str]]:
        first, careful = SCRIPT[question]
        return (careful if guardrail_instruction else first), retriever(question)

    return chatbot


def show(console: Console, result: GuardResult) -> None:
    topics = ", ".join(topic_text(t) for t in result.topics)
    d = result.decision
    score = "n/a" if d.score is None else f"{d.score:.2f}"
    head = Text.assemble(
        ("topic ", "bold"), topics, ("   score ", "bold"),
        (score, score_style(d.score or 0.0)), f" (threshold {d.threshold:.2f}, flagged if >=)",
    )  # fmt: skip
    body = Text()
    body.append_text(head)
    body.append("\nanswer   ")
    # Flagged spans: [[marked]] (readable without colour) and underlined in the factoid's colour.
    body.append_text(highlighted_text(result.report_text, result.report))
    if result.attempts > 1:
        body.append(f"\n(regenerated; first answer: {result.original_answer})", style="dim")
    colour = {"pass": "green", "highlight": "yellow", "cite": "yellow", "regenerate": "cyan",
              "abstain": "magenta", "escalate": "red"}[d.action]  # fmt: skip
    body.append("\ndecision ", style="bold")
    body.append(" + ".join(d.actions) or "pass", style=f"bold {colour}")
    if d.queue:
        body.append(f" -> queue {d.queue!r}", style=colour)
    body.append(f"\nuser sees {result.answer}")
    console.print(Panel(body, title=result.question, title_align="left", border_style=colour))


#: The files a run writes in --out; a new run removes them first.
RUN_FILES = (
    "audit.jsonl",
    "review.sqlite3",
    "review.sqlite3-wal",
    "review.sqlite3-shm",
    "escalations-fallback.jsonl",
)


def fresh(out: Path) -> bool:
    """Remove the previous run's files from ``out``; True when there were any."""
    old = [out / name for name in RUN_FILES if (out / name).exists()]
    for path in old:
        path.unlink()
    return bool(old)


def main() -> None:
    ap = argparse.ArgumentParser(description="guardrail offline demo")
    ap.add_argument("--out", default="guardrail-demo", help="folder for the audit log and queue")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    console = Console()
    if fresh(out):
        console.print(f"[dim]starting afresh: removed the previous run's files in {out}[/dim]")

    guard = Guard.from_yaml(
        POLICY,
        audit_log=out / "audit.jsonl",
        review_db=out / "review.sqlite3",
        fallback_log=out / "escalations-fallback.jsonl",
    )
    chatbot = guard.wrap(make_chatbot(Retriever(HERE / "demo_docs")))
    console.print(
        f"[bold]guardrail demo[/bold] — policy {guard.policy.name!r}, "
        "judge: offline (local: the trained verifier), answers are scripted\n"
    )
    for question in SCRIPT:
        show(console, chatbot(question))
    log, db = out / "audit.jsonl", out / "review.sqlite3"
    console.print(f"\naudit log: {log}  (check it: guardrail audit verify {log})")
    console.print(f"review queue: {db}  (see it: guardrail review list --db {db})")


if __name__ == "__main__":
    main()
