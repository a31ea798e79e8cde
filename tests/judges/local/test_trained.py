"""The trained verifier: its packaged model file, decision rule, judge wiring and scorers."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from guardrail.exceptions import ConfigError
from guardrail.judges.local import LocalJudge
from guardrail.judges.local.features import DENSE_NAMES, HASH_BUCKETS, Features
from guardrail.judges.local.trained import VERIFIER_FILE, VERIFIER_FORMAT, Cutoffs, VerifierModel
from guardrail.judges.local.verifiers import RulesVerifier, TrainedVerifier
from guardrail.judges.local.verify import Support
from guardrail.judges.registry import make_judge
from guardrail.models import Label
from guardrail.scoring.metarag import MetaRAG
from guardrail.scoring.parsing import parse_verdict
from guardrail.scoring.rt4chart import RT4Chart
from guardrail.training.readings import statement_features

from .conftest import CURIE_CONTEXT

_VERIFIER = TrainedVerifier()
_TRAINED = LocalJudge(verifier=_VERIFIER)
_ANSWER = (
    "Marie Curie was born in Warsaw in 1867. She later won an Olympic gold medal in rowing "
    "at the Stockholm games."
)


def _label(statement: str, context: str = CURIE_CONTEXT) -> Label:
    reply = _TRAINED.answer("verify", {"statement": statement, "context": context})
    label, reason, failure = parse_verdict(reply)
    assert failure is None and reason, reply
    return label


def _logistic(**overrides: object) -> dict[str, object]:
    data: dict[str, object] = {
        "format": VERIFIER_FORMAT,
        "kind": "logistic",
        "dense_names": list(DENSE_NAMES),
        "hash_buckets": HASH_BUCKETS,
        "intercept": 0.0,
        "coef": [0.0] * len(DENSE_NAMES),
        "hashed_coef": [0.0] * HASH_BUCKETS,
        "thresholds": {"support": 0.3, "refute": 0.9, "entailed": 0.4},
    }
    data.update(overrides)
    return data


def test_packaged_model_is_small_json_that_loads():
    """verifier.json is plain JSON under 5 MB, in the current format, with CV thresholds."""
    path = resources.files("guardrail.judges.local").joinpath(VERIFIER_FILE)
    raw = path.read_bytes()
    assert len(raw) < 5 * 1024 * 1024
    data = json.loads(raw)
    assert data["format"] == VERIFIER_FORMAT and data["dense_names"] == list(DENSE_NAMES)
    model = VerifierModel.load()
    assert model.kind in ("logistic", "trees")
    assert 0.0 < model.decision.support < 1.0
    assert model.meta["rows"] > 0 and model.meta["unsupported_factoids"] > 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "pickle"}, "format"),
        ({"dense_names": ["coverage"]}, "feature names"),
        ({"hash_buckets": 3}, "hash bucket"),
        ({"kind": "forest"}, "unknown kind"),
        ({"coef": [1.0, 2.0]}, "coef"),
        ({"coef": ["x"] * len(DENSE_NAMES)}, "numbers"),
        ({"thresholds": {"support": 0.3, "kinds": {"tables": {"support": 0.2}}}}, "context kind"),
        ({"thresholds": {"support": 0.3, "kinds": {"json": {"support": 0.2}}}}, "kinds.json"),
        ({"thresholds": {"support": 0.3, "kinds": [0.2]}}, "mapping"),
    ],
)
def test_malformed_model_is_a_config_error(change, message):
    """A model file from another version or with wrong shapes is refused with ConfigError."""
    with pytest.raises(ConfigError, match=message):
        VerifierModel(_logistic(**change))


def test_logistic_probability_uses_dense_and_hashed_weights():
    """p = sigmoid(intercept + standardized dense . coef + hashed weights), in (0, 1)."""
    coef = [0.0] * len(DENSE_NAMES)
    coef[DENSE_NAMES.index("coverage")] = -4.0
    hashed = [0.0] * HASH_BUCKETS
    hashed[7] = 3.0
    model = VerifierModel(_logistic(coef=coef, hashed_coef=hashed, intercept=1.0))
    dense = [0.0] * len(DENSE_NAMES)
    low = Features(tuple(dense), ())
    dense[DENSE_NAMES.index("coverage")] = 1.0
    covered = Features(tuple(dense), ())
    assert model.probability(low) == pytest.approx(1 / (1 + 2.718281828459045**-1.0))
    assert model.probability(covered) < model.probability(low)
    assert model.probability(Features(tuple(dense), (7,))) > model.probability(covered)


def test_trees_model_walks_nodes():
    """A one-split tree model sends values <= threshold left and adds its leaf in log-odds."""
    tree = {
        "feature": [DENSE_NAMES.index("coverage"), 0, 0],
        "threshold": [0.5, -2.0, -2.0],
        "left": [1, -1, -1],
        "right": [2, -1, -1],
        "value": [0.0, 2.0, -2.0],
    }
    model = VerifierModel(_logistic(kind="trees", trees=[tree], learning_rate=1.0))
    dense = [0.0] * len(DENSE_NAMES)
    uncovered = model.probability(Features(tuple(dense), ()))
    dense[DENSE_NAMES.index("coverage")] = 0.9
    covered = model.probability(Features(tuple(dense), ()))
    assert uncovered == pytest.approx(1 / (1 + 2.718281828459045**-2.0))
    assert covered == pytest.approx(1 - uncovered)


@pytest.mark.parametrize(
    ("p", "flipped", "clash", "expected"),
    [
        (0.1, False, False, Support.SUPPORTED),
        (0.1, True, False, Support.CONTRADICTED),  # "not X" where X is supported
        (0.5, False, False, Support.UNKNOWN),
        (0.5, True, False, Support.UNKNOWN),  # "not X" where X is unsupported
        (0.95, False, False, Support.CONTRADICTED),
        (0.95, True, False, Support.UNKNOWN),
        (0.1, False, True, Support.CONTRADICTED),  # a number the context gives differently
    ],
)
def test_decision_maps_probability_and_polarity(p, flipped, clash, expected):
    """Thresholds split p into YES/NOT SURE/NO; a reversed polarity turns support into NO."""
    decision = Cutoffs(support=0.3, refute=0.9, entailed=0.4, rule_clash=True)
    assert decision.outcome(p, flipped, clash=clash) is expected


def test_rt4chart_operating_point_is_separate():
    """The entailed threshold replaces the support threshold for RT4CHART calls."""
    decision = Cutoffs(support=0.3, refute=0.9, entailed=0.2)
    assert decision.outcome(0.25, False) is Support.SUPPORTED
    assert decision.outcome(0.25, False, support=decision.entailed) is Support.UNKNOWN


def test_cutoffs_per_context_kind_round_trip_through_the_model_file():
    """A kind listed in ``kinds`` has its own MetaRAG and RT4CHART cut-offs; other kinds use
    the single ones; ``as_dict`` writes what the model reader reads back."""
    decision = Cutoffs(support=0.3, entailed=0.2, kinds=(("json", 0.6, 0.5),))
    assert decision.cut("json") == 0.6 and decision.cut("json", rt4chart=True) == 0.5
    assert decision.cut("prose") == 0.3 and decision.cut("prose", rt4chart=True) == 0.2
    assert decision.cut() == 0.3
    model = VerifierModel(_logistic(thresholds=decision.as_dict()))
    assert model.decision == decision
    assert "kinds" not in Cutoffs().as_dict()  # files without per-kind cut-offs stay as they were


def test_trained_finding_uses_the_cutoff_of_its_context_kind():
    """The same statement, read against a JSON record, is judged at the JSON cut-off."""
    record = '{"name": "Cafe Aroma", "city": "Lyon", "rating": 4.5}'
    statement = "Cafe Aroma is in Lyon."
    features, _ = statement_features(_VERIFIER, statement, record)
    assert features.dense[DENSE_NAMES.index("context_json")] == 1.0
    p = VerifierModel(_logistic()).probability(features)  # 0.5: all weights zero
    lenient = Cutoffs(support=0.3, entailed=0.3, kinds=(("json", 0.9, 0.9),))
    strict = Cutoffs(support=0.9, entailed=0.9, kinds=(("json", 0.3, 0.3),))
    replies = []
    for decision in (lenient, strict):
        model = VerifierModel(_logistic(thresholds=decision.as_dict()))
        judge = LocalJudge(verifier=TrainedVerifier(model))
        replies.append(judge.answer("verify", {"statement": statement, "context": record}))
    assert p == pytest.approx(0.5)
    assert replies[0].startswith("YES") and replies[1].startswith("NOT SURE"), replies


def test_constructor_does_no_io_and_validates():
    """The model is read on first use; bad verifier names and stray model paths are refused."""
    judge = LocalJudge(verifier="trained")
    assert isinstance(judge.verifier, TrainedVerifier)
    assert judge.verifier._model is None and judge.name == "local-trained"
    judge.answer("verify", {"statement": "Curie discovered radium.", "context": CURIE_CONTEXT})
    assert judge.verifier._model is not None
    with pytest.raises(ConfigError, match="verifier must be one of"):
        LocalJudge(verifier="neural")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="model_path"):
        LocalJudge(verifier="rules", model_path="x.json")


def test_registry_specs():
    """local:trained and local:rules pick the verifier; other suffixes are a ConfigError."""
    trained = make_judge("local:trained")
    rules = make_judge("local:rules")
    assert isinstance(trained, LocalJudge) and isinstance(trained.verifier, TrainedVerifier)
    assert isinstance(rules, LocalJudge) and isinstance(rules.verifier, RulesVerifier)
    with pytest.raises(ConfigError):
        make_judge("local:neural")


@pytest.mark.parametrize(
    ("statement", "label"),
    [
        ("Marie Curie was born in Warsaw.", Label.YES),
        ("Curie discovered radium.", Label.YES),
        ("Marie Curie was not born in Warsaw.", Label.NO),
        ("It is not true that Curie discovered radium.", Label.NO),
    ],
)
def test_trained_verdicts_on_known_context(statement, label):
    """Restatements are YES and their negations NO."""
    assert _label(statement) is label


def test_invented_claim_is_not_supported_and_scores_high_risk():
    """A claim the context never mentions is NOT SURE, with risk far above a restatement's."""
    invented = "Curie won an Olympic gold medal in rowing in 1912."
    assert _label(invented) is Label.NOT_SURE
    risky = _VERIFIER.fitted_model.probability(
        statement_features(_VERIFIER, invented, CURIE_CONTEXT)[0]
    )
    plain = _VERIFIER.fitted_model.probability(
        statement_features(_VERIFIER, "Marie Curie was born in Warsaw.", CURIE_CONTEXT)[0]
    )
    assert risky > 0.5 > 0.1 > plain


def test_json_context_is_read_as_records():
    """A data-to-text JSON record supports statements phrased in words, not key names."""
    from guardrail.judges.local.structured import json_to_prose

    context = json.dumps(
        {
            "name": "Cafe Blue",
            "attributes": {"RestaurantsTakeOut": True, "WiFi": "free"},
            "hours": {"Monday": "11:0-21:0"},
        }
    )
    assert _label("Cafe Blue offers take-out.", context) is Label.YES
    assert _label("Cafe Blue is open on Monday from 11 am to 9 pm.", context) is Label.YES
    prose = json_to_prose(context)
    assert "restaurants take out: yes." in prose and "wi-fi: free." in prose
    assert "monday: 11:00-21:00 (11 am to 9 pm)." in prose
    assert json_to_prose("not json {") == "not json {"
    assert json_to_prose('{"broken": ') == '{"broken": '


def test_features_match_the_check_path():
    """statement_features (training) and check (scoring) see the same context preprocessing."""
    features, polarity = statement_features(
        _VERIFIER, "Marie Curie was not born in Warsaw.", CURIE_CONTEXT
    )
    assert len(features.dense) == len(DENSE_NAMES) and polarity.flipped()
    assert all(0 <= b < HASH_BUCKETS for b in features.hashed)


async def test_metarag_with_trained_judge_flags_the_invented_sentence():
    """MetaRAG flags the answer; the flagged span is the invented sentence, not the true one."""
    report = await MetaRAG(_TRAINED).score("Who was Curie?", _ANSWER, [CURIE_CONTEXT])
    assert report.flagged
    first, second = report.factoids
    assert first.score == 0.0 and not first.flagged
    assert second.flagged
    covered = "".join(_ANSWER[s:e] for s, e in report.flagged_spans)
    assert "Olympic gold medal" in covered and "Warsaw" not in covered
    assert all(c.model == "local-trained-v1" for c in report.calls)


async def test_rt4chart_with_trained_judge_flags_the_invented_sentence():
    """RT4CHART uses the same judge: the invented claim is not ENTAILED, the true one is."""
    report = await RT4Chart(_TRAINED).score("Who was Curie?", _ANSWER, [CURIE_CONTEXT])
    assert report.flagged
    finals = [c["final"] for c in report.settings["claims"]]
    assert finals[0] == "ENTAILED" and finals[-1] != "ENTAILED"
    covered = "".join(_ANSWER[s:e] for s, e in report.flagged_spans)
    assert "Olympic" in covered and "Warsaw" not in covered


@pytest.mark.parametrize(
    ("statement", "context"),
    [("", "Some context."), ("Ibuprofen is safe.", ""), ("...", "   "), ("Yes.", "No.")],
)
def test_degenerate_inputs_are_not_sure(statement, context):
    """Nothing to weigh (no content words or no context) is NOT SURE, never a model guess."""
    assert _label(statement, context) is Label.NOT_SURE


def _variant(statement: str, factoid: str, context: str = CURIE_CONTEXT) -> tuple[Label, str]:
    reply = _TRAINED.answer(
        "verify", {"statement": statement, "factoid": factoid, "context": context}
    )
    label, reason, failure = parse_verdict(reply)
    assert failure is None and reason, reply
    return label, reason


_TAKEOUT_RECORD = json.dumps(
    {"name": "Cafe Blue", "attributes": {"RestaurantsTakeOut": True, "WiFi": "free"}}
)


@pytest.mark.parametrize(
    ("statement", "factoid", "context", "label"),
    [
        # a supported factoid: its restatement is YES, its negations NO
        (
            "In fact, Cafe Blue offers take-out.",
            "Cafe Blue offers take-out.",
            _TAKEOUT_RECORD,
            Label.YES,
        ),
        (
            "Cafe Blue does not offer take-out.",
            "Cafe Blue offers take-out.",
            _TAKEOUT_RECORD,
            Label.NO,
        ),
        (
            "It is not true that Curie discovered radium.",
            "Curie discovered radium.",
            CURIE_CONTEXT,
            Label.NO,
        ),
        # an unsupported factoid: neither its restatement nor its negation is settled
        (
            "In fact, Curie won an Olympic gold medal in rowing in 1912.",
            "Curie won an Olympic gold medal in rowing in 1912.",
            CURIE_CONTEXT,
            Label.NOT_SURE,
        ),
        (
            "Curie did not win an Olympic gold medal in rowing in 1912.",
            "Curie won an Olympic gold medal in rowing in 1912.",
            CURIE_CONTEXT,
            Label.NOT_SURE,
        ),
    ],
)
def test_a_variant_follows_its_factoid(statement, factoid, context, label):
    """A MetaRAG variant gets its factoid's verdict, reversed when it reverses the factoid."""
    got, reason = _variant(statement, factoid, context)
    assert got is label
    reversing = any(word in statement for word in ("does not", "did not", "not true"))
    read_off = reason.startswith("The statement reverses its factoid.")
    # a yes/no attribute a JSON record states otherwise is decided by the conflict check
    assert read_off is reversing or (reversing and "the record says" in reason)


def test_a_variant_is_read_on_its_own_when_it_matches_another_unit():
    """A 'variant' that talks about another sentence than its factoid is not read off it."""
    label, reason = _variant(
        "She did not share the Nobel Prize in Physics in 1903.", "Curie discovered radium."
    )
    assert label is Label.NO and "reverses its factoid" not in reason


def test_reverses_compares_a_variant_with_its_factoid_through_the_context():
    from guardrail.judges.local.features import reverses

    prepared = _VERIFIER.prepare(CURIE_CONTEXT)

    def read(text: str):
        return _VERIFIER.assess(text, prepared)

    born = read("Marie Curie was born in Warsaw.")
    assert reverses(read("Marie Curie was not born in Warsaw."), born) is True
    assert reverses(read("In fact, Marie Curie was born in Warsaw."), born) is False
    assert reverses(read("It is not true that Marie Curie was not born in Warsaw."), born) is False
    # different context units: not comparable
    assert reverses(read("She did not share the Nobel Prize in 1903."), born) is None
    # no unit matches either: their own negations decide
    yacht = read("Bob owns a yacht.")
    assert yacht.best is None
    assert reverses(read("Bob does not own a yacht."), yacht) is True
    assert reverses(read("Bob owns a yacht, in fact."), yacht) is False


#: The highest coverage the recipe may trust bare negations from (``TRUST_GRID``).
_STRICT_TRUST = 0.9


def test_an_opposite_word_reverses_a_partly_matched_sentence():
    """'safe' against 'contraindicated' is believed at partial coverage, whatever coverage the
    model's recipe trusts bare negations from (here the strictest it may choose)."""
    from guardrail.judges.local.features import polarity

    context = (
        "Ibuprofen and other NSAIDs are contraindicated in the third trimester of pregnancy. "
        "Paracetamol is generally considered the first choice for pain relief during pregnancy."
    )
    statement = "Ibuprofen is completely safe in every trimester of pregnancy."
    prepared = _VERIFIER.prepare(context)
    read = polarity(_VERIFIER.assess(statement, prepared))
    assert read.opposed and read.coverage < _STRICT_TRUST
    assert read.flipped(_STRICT_TRUST)
    report = MetaRAG(_TRAINED).score_sync("Can I take ibuprofen?", statement, [context])
    assert report.score == 1.0


def test_a_relational_opposite_does_not_reverse_a_partly_matched_sentence():
    """'before' against 'after' can tell the same order from the other end, so at partial
    coverage it does not reverse the statement; a verdict-scale opposite ('safe' against
    'contraindicated') does."""
    from guardrail.judges.local.features import polarity

    trust = _STRICT_TRUST
    context = "Bates shot Harris with his handgun after calling out a warning."
    statement = "Bates called out a warning before he shot Harris with his handgun in the street."
    found = _VERIFIER.assess(statement, _VERIFIER.prepare(context))
    read = polarity(found)
    assert found.best is not None and [t.stem for t in found.best.opposed] == ["befor"]
    assert read.parity and read.coverage < trust
    assert not read.opposed and not read.flipped(trust)

    context = "Ibuprofen is contraindicated in the third trimester of pregnancy."
    statement = "Ibuprofen is completely safe in every trimester of pregnancy."
    read = polarity(_VERIFIER.assess(statement, _VERIFIER.prepare(context)))
    assert read.opposed and read.parity and read.coverage < trust
    assert read.flipped(trust)
