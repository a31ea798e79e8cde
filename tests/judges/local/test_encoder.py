"""The encoder verifier (``local:encoder``): windowing, cuts, the packaged ONNX model, wiring."""

from __future__ import annotations

import builtins
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from guardrail.exceptions import ConfigError
from guardrail.judges.local import LocalJudge
from guardrail.judges.local.encoder import EncoderCutoffs, context_sentences, window
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.verify import Support, assess, index_context
from guardrail.judges.registry import make_judge, parse_spec
from guardrail.policy.loader import parse_policy
from guardrail.scoring.metarag import MetaRAG
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


def test_cutoffs_outcome():
    cuts = EncoderCutoffs(support=0.6, refute=0.5, entailed=0.3)
    assert cuts.outcome((0.7, 0.2, 0.1)) is Support.SUPPORTED
    assert cuts.outcome((0.4, 0.5, 0.1)) is Support.CONTRADICTED
    assert cuts.outcome((0.4, 0.2, 0.4)) is Support.UNKNOWN
    assert cuts.outcome((0.4, 0.2, 0.4), rt4chart=True) is Support.SUPPORTED


def test_registry_and_policy_take_local_encoder():
    assert parse_spec("local:encoder").model == "encoder"
    judge = make_judge("local:encoder")
    assert isinstance(judge, LocalJudge) and judge.verifier == "encoder"
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
    with pytest.raises(ConfigError, match=r"pip install 'guardrail\[encoder\]'"):
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
    assert set(files) == {"model.onnx", "tokenizer.json", "encoder.json"}
    assert sum(files.values()) <= 30 * 1024 * 1024
    spec = json.loads((PACKAGED / "encoder.json").read_text())
    assert spec["format"] == "guardrail-encoder/1"
    assert {"support", "refute", "entailed"} <= set(spec["thresholds"])


def test_probabilities_are_distributions_and_deterministic(encoder_judge):
    encoder = encoder_judge.encoder
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
    [(_, ok), (_, bad)] = [
        (pair, encoder_judge.encoder.probabilities([pair])[0])
        for pair, _ in encoder_judge.encoder_inputs([faithful, altered], CURIE_CONTEXT)
        if pair is not None
    ]
    assert ok[0] > bad[0]


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
    assert verify_calls and all(c.model == "local-encoder-v1" for c in verify_calls)


def test_a_broken_model_directory_is_a_config_error(tmp_path, encoder_judge):
    bad = tmp_path / "enc"
    shutil.copytree(PACKAGED, bad)
    (bad / "model.onnx").write_bytes(b"not an onnx graph")
    with pytest.raises(ConfigError, match=r"cannot load model\.onnx"):
        LocalJudge(verifier="encoder", model_path=bad).encoder  # noqa: B018
    spec = json.loads((bad / "encoder.json").read_text())
    (bad / "encoder.json").write_text(json.dumps({**spec, "format": "other/9"}))
    with pytest.raises(ConfigError, match="expected format"):
        LocalJudge(verifier="encoder", model_path=bad).encoder  # noqa: B018
    with pytest.raises(ConfigError, match="not found"):
        LocalJudge(verifier="encoder", model_path=tmp_path / "missing").encoder  # noqa: B018


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
    assert models == {"local-encoder-v1"}
