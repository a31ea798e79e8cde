"""Wrap a chatbot in under ten lines — runnable offline (no API key, no model).

    python examples/wrap_chatbot.py

`my_retriever` and `my_llm` stand in for your own retrieval and generation.
"""

from __future__ import annotations

from pathlib import Path

from guardrail import Guard

POLICY = Path(__file__).resolve().parents[1] / "policies" / "default.yaml"
PASSAGES = {
    "ibuprofen": "Ibuprofen is contraindicated in the third trimester of pregnancy.",
    "library": "The city library is open on Saturdays from 10:00 to 14:00.",
}


def my_retriever(question: str) -> list[str]:
    return [text for key, text in PASSAGES.items() if key in question.lower()]


def my_llm(question: str, passages: list[str], extra: str | None = None) -> str:
    if "ibuprofen" in question.lower():  # a hallucinating model, unless told to be strict
        return passages[0] if extra else "Yes, ibuprofen is safe throughout pregnancy."
    return passages[0] if passages else "I don't know."


# --- the guarded chatbot: these lines are all the integration there is ---------------------
guard = Guard.from_yaml(POLICY, audit_log="wrap-demo-audit.jsonl", review_db="wrap-demo.sqlite3")


@guard.wrap
def chatbot(question: str, guardrail_instruction: str | None = None):
    passages = my_retriever(question)
    return my_llm(question, passages, extra=guardrail_instruction), passages


# -------------------------------------------------------------------------------------------

if __name__ == "__main__":
    for q in ("When is the library open on Saturdays?", "Can pregnant women take ibuprofen?"):
        result = chatbot(q)
        print(f"Q: {q}")
        print(
            f"   decision: {' + '.join(result.decision.actions) or 'pass'}"
            f" (topic {result.decision.topic}, threshold {result.decision.threshold})"
        )
        print(f"   answer:   {result.answer}")  # fmt: skip
