"""The encoder verifier (``local:encoder``): windowing, the stack, the ONNX model, wiring."""

from __future__ import annotations

import builtins
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from guardrail.exceptions import ConfigError
from guardrail.judges.local import LocalJudge
from guardrail.judges.local.encoder import STACK_FILE, context_sentences, window
from guardrail.judges.local.features import STACK_NAMES
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.verifiers import EncoderVerifier
from guardrail.judges.local.verify import assess, index_context
from guardrail.judges.registry import make_judge, parse_spec
from guardrail.policy.loader import parse_policy
from guardrail.scoring.metarag import MetaRAG
from guardrail.training.readings import encoder_window
from tests.judges.local.conftest import CURIE_CONTEXT
from tests.needs import unavailable
from tests.policy.factories import BASE_YAML

PACKAGED = Path(__file__).resolve().parents[3] / "guardrail" / "judges" / "local" / "encoder"


def _window(statement: str, context: str, words: int = 40) -> str:
    lex = Lexicon.load()
    index = index_context(context, lex)
    return window(assess(statement, index, lex), context_sentences(index), words)


def test_window_centres_on_the_best_sentence_and_keeps_the_budget():
    w = _window("Curie shared the Nobel Prize in Physics in 1903.", CURIE_CONTEXT, words=20)
    assert "In 1903 she shared the Nobel Prize in Physics." in w
    assert len(w.split()) <= 20
    assert "diaphragm" not in w  # two sentences away, past the budget


def test_window_grows_to_the_neighbours_when_they_fit():
    w = _window("Curie shared the Nobel Prize in Physics in 1903.", CURIE_CONTEXT, words=200)
    assert w.startswith("Marie Curie was born") and w.endswith("air sacs.")


def test_window_without_a_shared_word_is_the_context_start():
    w = _window("Zebras graze on savannah grass.", CURIE_CONTEXT, words=12)
    assert w == "Marie Curie was born in Warsaw in 1867."


def test_registry_and_policy_take_local_encoder():
    assert parse_spec("local:encoder").model == "encoder"
    judge = make_judge("local:encoder")
    assert isinstance(judge, LocalJudge) and isinstance(judge.verifier, EncoderVerifier)
    assert judge.name == "local-encoder"
    policy = parse_policy("scorer:\n  judge: local:encoder\n" + BASE_YAML)
    assert policy.scorer.judge == "local:encoder"


def test_missing_extra_is_a_clear_error(monkeypatch):
    real_import = builtins.__import__

    def no_onnxruntime(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "onnxruntime":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_onnxruntime)
    judge = LocalJudge(verifier="encoder")
    with pytest.raises(ConfigError, match=r"pip install 'guardrail-rag\[encoder\]'"):
        judge.answer("verify", {"statement": "Curie was born in Warsaw.", "context": CURIE_CONTEXT})


# --- with onnxruntime and the packaged model ---------------------------------------------------


@pytest.fixture(scope="module")
def encoder_judge() -> LocalJudge:
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError:
        unavailable("encoder", "onnxruntime/tokenizers not installed (the 'encoder' extra)")
    return LocalJudge(verifier="encoder")


def test_packaged_model_is_small_and_safe():
    files = {p.name: p.stat().st_size for p in PACKAGED.iterdir()}
    assert set(files) == {"model.onnx", "tokenizer.json", "encoder.json", STACK_FILE}
    assert sum(files.values()) <= 30 * 1024 * 1024
    spec = json.loads((PACKAGED / "encoder.json").read_text())
    assert spec["format"] == "guardrail-encoder/2"
    stack = json.loads((PACKAGED / STACK_FILE).read_text())
    assert stack["dense_names"] == list(STACK_NAMES)
    assert {"support", "entailed", "trust"} <= set(stack["thresholds"])


def test_probabilities_are_distributions_and_deterministic(encoder_judge):
    encoder = encoder_judge.verifier.encoder
    pairs = [("Marie Curie was born in Warsaw.", "Marie Curie was born in Warsaw in 1867.")]
    first = encoder.probabilities(pairs)[0]
    encoder._memo.clear()
    again = encoder.probabilities(pairs)[0]
    assert first == pytest.approx(again)
    assert sum(first) == pytest.approx(1.0) and all(0.0 <= p <= 1.0 for p in first)


@pytest.mark.parametrize(
    ("faithful", "altered"),
    [
        ("Marie Curie was born in Warsaw in 1867.", "Marie Curie was born in Paris in 1867."),
        ("The Eiffel Tower is 330 metres tall.", "The Eiffel Tower is 150 metres tall."),
        (
            "In 1903 she shared the Nobel Prize in Physics.",
            "In 1903 she did not share the Nobel Prize in Physics.",
        ),
    ],
)
def test_a_changed_fact_is_less_supported_than_the_faithful_one(encoder_judge, faithful, altered):
    encoder = encoder_judge.verifier.encoder
    ok, bad = (
        encoder.probabilities([(s, encoder_window(encoder_judge.verifier, s, CURIE_CONTEXT))])[0]
        for s in (faithful, altered)
    )
    assert ok[0] > bad[0]


def test_variants_of_a_factoid_are_read_through_the_factoid(encoder_judge):
    """Variants sent with their source factoid (as MetaRAG sends them) share the factoid's
    forward pass, and their verdicts follow polarity: a supported factoid's antonyms are
    contradicted."""
    judge = LocalJudge(verifier="encoder")
    assert isinstance(judge.verifier, EncoderVerifier)
    factoid = "Marie Curie was born in Warsaw in 1867."
    inputs = {"factoid": factoid, "count": 2}
    synonyms = judge.answer("synonym", inputs).splitlines()
    antonyms = judge.answer("antonym", inputs).splitlines()
    assert synonyms and antonyms
    encoder = judge.verifier.encoder
    before = encoder.pairs_run
    verdicts = [
        judge.answer(
            "verify", {"statement": s, "context": CURIE_CONTEXT, "factoid": factoid}
        ).split(".")[0]
        for s in [factoid, *synonyms, *antonyms]
    ]
    assert encoder.pairs_run - before <= 1  # one pair: the factoid (or a memo hit)
    assert verdicts[0] == "YES"
    assert set(verdicts[1 : 1 + len(synonyms)]) == {"YES"}
    assert set(verdicts[1 + len(synonyms) :]) == {"NO"}


def test_stack_reads_the_encoder_probabilities(encoder_judge, tmp_path):
    """The stack's encoder features are used: a model leaning only on them flips with them."""
    stack = json.loads((PACKAGED / STACK_FILE).read_text())
    lean = {
        **stack,
        "kind": "logistic",
        "intercept": 0.0,
        "mean": [0.0] * len(STACK_NAMES),
        "scale": [1.0] * len(STACK_NAMES),
        "coef": [0.0] * (len(STACK_NAMES) - 3) + [-8.0, 0.0, 8.0],
        "hashed_coef": [0.0] * stack["hash_buckets"],
        "thresholds": {"support": 0.5, "trust": 0.6},
    }
    lean.pop("trees", None)
    from guardrail.judges.local.trained import VerifierModel

    verifier = EncoderVerifier(encoder_judge.verifier.encoder.with_stack(VerifierModel(lean)))
    judge = LocalJudge(verifier=verifier)
    faithful = "Marie Curie was born in Warsaw in 1867."
    window_ = encoder_window(verifier, faithful, CURIE_CONTEXT)
    probs = verifier.encoder.probabilities([(faithful, window_)])[0]
    reply = judge.answer("verify", {"statement": faithful, "context": CURIE_CONTEXT})
    assert reply.startswith("YES" if probs[0] > probs[2] else "NOT SURE")
    assert "encoder: supported" in reply


def test_batch_replies_match_single_replies(encoder_judge):
    statements = ["Marie Curie was born in Warsaw.", "Curie was born in Rome.", "", "Birds fly."]
    batch = encoder_judge.answer(
        "verify_batch", {"statements": statements, "context": CURIE_CONTEXT}
    )
    singles = [
        encoder_judge.answer("verify", {"statement": s, "context": CURIE_CONTEXT})
        for s in statements
    ]
    assert [line.split(". ", 1)[1] for line in batch.splitlines()] == singles
    assert all(s.split(".")[0] in {"YES", "NO", "NOT SURE"} for s in singles)
    rt = encoder_judge.answer("local_verify", {"claim": statements[0], "context": CURIE_CONTEXT})
    assert rt.split(".")[0] in {"ENTAILED", "CONTRADICTED", "BASELESS"}


def test_metarag_with_the_encoder_scores_an_answer(encoder_judge):
    report = MetaRAG(encoder_judge).score_sync(
        "Where was Marie Curie born?",
        "Marie Curie was born in Warsaw in 1867.",
        [CURIE_CONTEXT],
    )
    assert report.status == "ok" and 0.0 <= report.score <= 1.0
    verify_calls = [c for c in report.calls if c.stage.startswith("verify")]
    assert verify_calls and all(c.model == "local-encoder-v2" for c in verify_calls)


def test_a_broken_model_directory_is_a_config_error(tmp_path, encoder_judge):
    bad = tmp_path / "enc"
    shutil.copytree(PACKAGED, bad)
    (bad / "model.onnx").write_bytes(b"not an onnx graph")
    with pytest.raises(ConfigError, match=r"cannot load model\.onnx"):
        EncoderVerifier(model_path=bad).encoder  # noqa: B018
    spec = json.loads((bad / "encoder.json").read_text())
    (bad / "encoder.json").write_text(json.dumps({**spec, "format": "other/9"}))
    with pytest.raises(ConfigError, match="expected format"):
        EncoderVerifier(model_path=bad).encoder  # noqa: B018
    with pytest.raises(ConfigError, match="not found"):
        EncoderVerifier(model_path=tmp_path / "missing").encoder  # noqa: B018
    (bad / "encoder.json").write_text(json.dumps(spec))
    shutil.copyfile(PACKAGED / "model.onnx", bad / "model.onnx")
    lexical_only = json.loads((PACKAGED.parent / "verifier.json").read_text())
    (bad / STACK_FILE).write_text(json.dumps(lexical_only))
    with pytest.raises(ConfigError, match="not stacked"):
        EncoderVerifier(model_path=bad).encoder  # noqa: B018
    (bad / STACK_FILE).unlink()
    with pytest.raises(ConfigError, match=r"stack\.json"):
        EncoderVerifier(model_path=bad).encoder  # noqa: B018


def test_cli_check_takes_local_encoder(encoder_judge, capsys):
    from guardrail.cli import main

    argv = [
        "check",
        "--judge",
        "local:encoder",
        "-c",
        CURIE_CONTEXT,
        "-a",
        "Curie was born in Warsaw.",
    ]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    models = {c["model"] for c in out["calls"] if c["stage"].startswith("verify")}
    assert models == {"local-encoder-v2"}


def test_judge_model_names_an_encoder_directory(encoder_judge, tmp_path):
    """`judge_model` (`--judge-model`) points local:encoder at another model directory — what
    scripts/train_encoder.py --out writes — and a broken one is the same clear error."""
    from guardrail.scoring.factory import judge_for
    from guardrail.scoring.settings import MetaRAGSettings

    copy = tmp_path / "retrained"
    shutil.copytree(PACKAGED, copy)
    judge = judge_for(MetaRAGSettings(judge="local:encoder", judge_model=str(copy)))
    assert isinstance(judge, LocalJudge) and isinstance(judge.verifier, EncoderVerifier)
    assert Path(judge.verifier.encoder.meta["recipe"]).name == "train_encoder.py"
    assert Path(str(judge.verifier.model_path)) == copy
    (copy / STACK_FILE).unlink()
    broken = judge_for(MetaRAGSettings(judge="local:encoder", judge_model=str(copy)))
    with pytest.raises(ConfigError, match=r"stack\.json"):
        broken.verifier.encoder  # type: ignore[attr-defined]  # noqa: B018
