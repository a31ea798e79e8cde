"""MetaRAG's cheaper protocols: the same verdicts as the paper's, in far fewer calls and tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guardrail.cli import main
from guardrail.judges import JudgeRequest, ScriptedJudge
from guardrail.judges.local import LocalJudge
from guardrail.models import Label
from guardrail.scoring import MetaRAG, MetaRAGConfig

ROWS = Path(__file__).resolve().parents[1] / "data" / "eval_tiny.jsonl"
QUESTION = "Can pregnant women take ibuprofen?"
ANSWER = (
    "Ibuprofen is safe in the first two trimesters. Paracetamol is the first choice during "
    "pregnancy. A pack costs 5 euros."
)
CONTEXT = [
    "Ibuprofen is contraindicated in the third trimester of pregnancy. Paracetamol is "
    "generally considered the first choice for pain relief during pregnancy. " * 12
]


def score(protocol: str, judge=None, question=QUESTION, answer=ANSWER, context=CONTEXT):
    scorer = MetaRAG(judge or LocalJudge(), config=MetaRAGConfig(protocol=protocol))
    return scorer.score_sync(question, answer, context)


@pytest.mark.parametrize("protocol", ["factoid", "answer"])
def test_the_offline_judge_gives_the_same_verdicts_in_every_protocol(protocol: str):
    """Same factoids, same variants, same labels: only the packaging of the calls changes."""
    rows = [json.loads(line) for line in ROWS.read_text().splitlines()]
    for row in [{"question": QUESTION, "answer": ANSWER, "context": CONTEXT}, *rows]:
        context = row["context"] if isinstance(row["context"], list) else [row["context"]]
        paper = score("paper", question=row["question"], answer=row["answer"], context=context)
        other = score(protocol, question=row["question"], answer=row["answer"], context=context)
        assert [f.score for f in other.factoids] == [f.score for f in paper.factoids]
        assert [[v.label for v in f.variants] for f in other.factoids] == [
            [v.label for v in f.variants] for f in paper.factoids
        ]


LONG_ANSWER = ANSWER + (
    " Ibuprofen is safe in the third trimester. Paracetamol is not recommended during"
    " pregnancy. Aspirin is the first choice for back pain."
)


def test_calls_round_trips_and_prompt_tokens_per_protocol():
    """k = 2 and six factoids (RAGTruth answers average about eight): paper 1 + 12 + 24 calls;
    factoid 1 + 1 + 6; answer 1 + 1 + 1; three sequential round trips each; the answer
    protocol sends the context once instead of 24 times: under a tenth of the paper's prompt
    tokens."""
    reports = {p: score(p, answer=LONG_ANSWER) for p in ("paper", "factoid", "answer")}
    n = len(reports["paper"].factoids)
    assert n == 6
    assert reports["paper"].usage.judge_calls == 1 + 2 * n + 4 * n
    assert reports["factoid"].usage.judge_calls == 1 + 1 + n
    assert reports["answer"].usage.judge_calls == 3
    assert all(len(r.usage.stages) == 3 for r in reports.values())
    assert reports["answer"].usage.prompt_tokens * 10 <= reports["paper"].usage.prompt_tokens
    assert reports["answer"].settings["protocol"] == "answer"


def test_one_bad_item_is_not_sure_and_the_call_still_counts():
    """A batch reply with one garbled line: that statement is NOT SURE (parsed=False) and the
    call records a parse failure; the other verdicts stand."""

    def handler(request: JudgeRequest) -> str:
        if request.task == "decompose":
            return json.dumps(["Paris is in France."])
        if request.task == "mutate_all":
            return json.dumps(
                {"1": {"synonyms": ["Paris lies in France.", "France contains Paris."],
                       "antonyms": ["Paris is not in France.", "Paris is in Spain."]}}
            )  # fmt: skip
        return "1. YES. stated\n2. YES. stated\n3. ¯\\_(ツ)_/¯\n4. NO. contradicted"

    report = score("answer", judge=ScriptedJudge(handler), answer="Paris is in France.")
    (factoid,) = report.factoids
    labels = [v.label for v in factoid.variants]
    assert labels == [Label.YES, Label.YES, Label.NOT_SURE, Label.NO]
    assert [v.verdicts[0].parsed for v in factoid.variants] == [True, True, False, True]
    verify_call = next(c for c in report.calls if c.stage == "verify_batch")
    assert verify_call.ok and "item(s) 3" in (verify_call.parse_failure or "")
    assert report.status == "ok" and factoid.score == pytest.approx((0 + 0 + 0.5 + 0) / 4)


def test_an_unusable_mutation_reply_is_filled_mechanically():
    def handler(request: JudgeRequest) -> str:
        if request.task == "decompose":
            return json.dumps(["Paris is in France."])
        if request.task == "mutate_all":
            return "Sorry, I cannot help with that."
        return "\n".join(f"{i}. NOT SURE. unknown" for i in range(1, 5))

    report = score("factoid", judge=ScriptedJudge(handler), answer="Paris is in France.")
    (factoid,) = report.factoids
    assert [v.generated for v in factoid.variants] == [False] * 4
    mutate_call = next(c for c in report.calls if c.stage == "mutate_all")
    assert "no JSON object of mutations" in (mutate_call.parse_failure or "")


def test_check_and_eval_take_the_protocol(tmp_path: Path, capsys):
    argv = ["check", "-q", QUESTION, "-a", ANSWER, "-c", CONTEXT[0], "--json"]
    assert main([*argv, "--protocol", "answer"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["settings"]["protocol"] == "answer" and data["usage"]["judge_calls"] == 3
    out = tmp_path / "eval.json"
    assert main(["eval", str(ROWS), "--protocol", "factoid", "--json-out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["settings"]["protocol"] == "factoid"
    assert result["cost"]["round_trips_per_answer"] <= 3
