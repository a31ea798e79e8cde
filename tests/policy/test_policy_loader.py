"""The policy loader: valid files, defaults, hashing, and one-line errors with key paths."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from guardrail.exceptions import ConfigError, PolicyError
from guardrail.policy import format_key_path, load_policy, parse_policy
from guardrail.policy.loader import parse_key_path
from guardrail.policy.schema import (
    ENCODER_CONFIDENCE_FLOOR,
    ENCODER_EMBEDDING_C,
    ENCODER_EMBEDDING_WEIGHT,
    ClassifierSettings,
)
from tests.policy.factories import BASE_YAML


def _error(text: str, source: str = "p.yaml") -> PolicyError:
    with pytest.raises(PolicyError) as info:
        parse_policy(text, source=source)
    return info.value


def test_base_policy_loads_with_documented_defaults():
    """Omitted sections get the documented defaults (metarag, k=2, local judge, floor 0.5)."""
    policy = parse_policy(BASE_YAML)
    assert policy.name == "test"
    assert policy.scorer.method == "metarag"
    assert policy.scorer.k == 2
    assert policy.scorer.judge == "local"
    assert policy.scorer.verifiers == []
    assert policy.classifier.confidence_floor == 0.5
    assert policy.classifier.default_topic == "general"
    assert policy.topic("general").reads == "query"
    assert policy.topic("general").on_flag.highlight is True
    assert policy.topic("general").on_flag.cite is False


def test_on_error_defaults_fail_closed_for_sensitive_topics():
    """Sensitive topics escalate (or abstain without a queue) on error; normal ones pass."""
    policy = parse_policy(BASE_YAML)
    assert policy.topic("general").on_error == "pass"
    assert policy.topic("pregnancy").on_error == "escalate"
    assert policy.topic("asylum").on_error == "escalate"
    assert policy.topic("labour").on_error == "abstain"


def test_explicit_on_error_is_kept():
    """An author's explicit on_error wins over the sensitivity-based default."""
    text = BASE_YAML.replace("    threshold: 0.5\n", "    threshold: 0.5\n    on_error: abstain\n")
    assert parse_policy(text).topic("general").on_error == "abstain"


def test_topic_lookup_and_default_rule():
    """policy.topic(name) finds rules; unknown names raise KeyError naming the topic."""
    policy = parse_policy(BASE_YAML)
    assert policy.topic("asylum").threshold == 0.3
    assert policy.default_rule.name == "general"
    assert policy.has_topic("labour") and not policy.has_topic("finance")
    with pytest.raises(KeyError, match="finance"):
        policy.topic("finance")


def test_content_hash_is_sha256_of_canonical_json():
    """content_hash is the sha256 hex digest of the sorted, compact JSON of the policy."""
    policy = parse_policy(BASE_YAML)
    canonical = json.dumps(
        policy.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    assert policy.content_hash == hashlib.sha256(canonical.encode()).hexdigest()
    assert len(policy.content_hash) == 64


def test_content_hash_ignores_layout_but_not_content():
    """Comments and YAML style do not change the hash; a threshold change does."""
    restyled = "# a comment\n" + BASE_YAML.replace(
        "  - name: general\n    threshold: 0.5\n", "  - {name: general, threshold: 0.50}\n"
    )
    base = parse_policy(BASE_YAML)
    assert parse_policy(restyled).content_hash == base.content_hash
    changed = BASE_YAML.replace("threshold: 0.5\n", "threshold: 0.4\n")
    assert parse_policy(changed).content_hash != base.content_hash


def test_load_policy_reads_a_file(tmp_path: Path):
    """load_policy reads UTF-8 YAML from disk and validates it."""
    path = tmp_path / "p.yaml"
    path.write_text(BASE_YAML, encoding="utf-8")
    assert load_policy(path).name == "test"
    assert load_policy(str(path)) == parse_policy(BASE_YAML)


def test_missing_file_is_a_policy_error(tmp_path: Path):
    """A missing file raises PolicyError naming the file (a ConfigError, exit 2 in the CLI)."""
    missing = tmp_path / "nope.yaml"
    with pytest.raises(PolicyError) as info:
        load_policy(missing)
    assert isinstance(info.value, ConfigError)
    assert info.value.file == str(missing)
    assert str(info.value) == f"{missing}: file not found"


def test_directory_is_a_policy_error(tmp_path: Path):
    """Pointing at a directory gives a clear PolicyError, not an OSError."""
    with pytest.raises(PolicyError, match="is a directory"):
        load_policy(tmp_path)


def test_non_utf8_file_is_a_policy_error(tmp_path: Path):
    """Undecodable bytes give a PolicyError, not a UnicodeDecodeError."""
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\xe9\n".encode("latin-1"))
    with pytest.raises(PolicyError, match="not UTF-8"):
        load_policy(path)


@pytest.mark.parametrize(
    ("old", "new", "key_path", "problem"),
    [
        ("name: test\n", "nmae: test\n", "nmae", "did you mean 'name'"),
        ("    threshold: 0.5\n", "    treshold: 0.5\n", "topics[0].treshold", "did you mean"),
        ("    threshold: 0.5\n", "    threshold: 1.5\n", "topics[0].threshold", "less than or"),
        ("    threshold: 0.5\n", "    threshold: -0.1\n", "topics[0].threshold", "greater than or"),
        ("    threshold: 0.5\n", "    threshold: high\n", "topics[0].threshold", "valid number"),
        ("    threshold: 0.5\n", "    threshold: '0.5'\n", "topics[0].threshold", "valid number"),
        ("    threshold: 0.5\n", "    threshold: .nan\n", "topics[0].threshold", "finite number"),
        ("  - name: general\n", "  - name: General Topic\n", "topics[0].name", "match pattern"),
        ("    sensitivity: sensitive\n    threshold: 0.3\n    on_flag:\n      cite: true\n",
         "    sensitivity: critical\n    threshold: 0.3\n    on_flag:\n      cite: true\n",
         "topics[2].sensitivity", "'normal' or 'sensitive'"),
        ("      escalate: {queue: asylum}\n", "      escalate: {message: hold on}\n",
         "topics[2].on_flag.escalate.queue", "required key is missing"),
        ("      escalate: {queue: asylum}\n", "      escalate: {queue: ''}\n",
         "topics[2].on_flag.escalate.queue", "match pattern"),
        ("      regenerate: {max_attempts: 1}\n", "      regenerate: {max_attempts: 0}\n",
         "topics[1].on_flag.regenerate.max_attempts", "greater than or equal to 1"),
        ("      highlight: true\n", "      highlight: 'yes'\n",
         "topics[1].on_flag.highlight", "valid boolean"),
        ("      cite: true\n      abstain", "      cite: true\n      abstian",
         "topics[2].on_flag.abstian", "did you mean 'abstain'"),
        ("  - name: labour\n", "  - name: asylum\n", "topics[3].name", "duplicate topic name"),
        ("version: 1\n", "version: 0\n", "version", "greater than or equal to 1"),
    ],
)  # fmt: skip
def test_each_kind_of_error_names_the_key_path(old: str, new: str, key_path: str, problem: str):
    """Unknown keys, wrong types and bad values are reported at their exact key path."""
    assert old in BASE_YAML
    err = _error(BASE_YAML.replace(old, new, 1))
    assert err.file == "p.yaml"
    assert err.key_path == key_path
    assert problem in err.problem
    assert str(err).startswith(f"p.yaml: {key_path}: ")
    assert "\n" not in str(err)


@pytest.mark.parametrize(
    ("section", "key_path", "problem"),
    [
        ("scorer:\n  method: bert\n", "scorer.method", "unknown scorer method 'bert'"),
        ("scorer:\n  k: 0\n", "scorer.k", "greater than or equal to 1"),
        ("scorer:\n  judge: gpt-4\n", "scorer.judge", "unknown judge spec 'gpt-4'"),
        ("scorer:\n  verifiers: [local, 'openai-compatible:m']\n", "scorer.verifiers[1]",
         "unknown judge spec"),
        ("scorer:\n  ensemble_rule: vote\n", "scorer.ensemble_rule", "'majority' or"),
        ("scorer:\n  timeout_s: 0\n", "scorer.timeout_s", "greater than 0"),
        ("classifier:\n  default_topic: other\n", "classifier.default_topic", "not defined"),
        ("classifier:\n  confidence_floor: 2\n", "classifier.confidence_floor", "less than"),
        ("classifier:\n  max_topics: 0\n", "classifier.max_topics", "greater than or equal to 1"),
        ("classifier:\n  embeddings: bert\n", "classifier.embeddings", "'none' or 'encoder'"),
        ("classifier:\n  embeddings: true\n", "classifier.embeddings", "'none' or 'encoder'"),
        ("classifier:\n  embedding_weight: 0\n", "classifier.embedding_weight", "greater than 0"),
        ("classifier:\n  embedding_weight: '2'\n", "classifier.embedding_weight",
         "valid number"),
        ("classifier:\n  embedding_c: -1\n", "classifier.embedding_c", "greater than 0"),
        ("classifier:\n  encoder_model: ''\n", "classifier.encoder_model", "at least 1"),
        ("classifier:\n  embeddings: encoder\n  confidence_floor: 1.5\n",
         "classifier.confidence_floor", "less than"),
        ("classifier:\n  embeddings: encoder\n  embeddings_weight: 2\n",
         "classifier.embeddings_weight", "unknown"),
    ],
)  # fmt: skip
def test_settings_errors_name_the_key_path(section: str, key_path: str, problem: str):
    """Scorer and classifier settings are validated with the same key-path errors."""
    err = _error(section + BASE_YAML)
    assert (err.key_path, problem in err.problem) == (key_path, True), str(err)


def test_classifier_embeddings_are_opt_in_with_their_own_default_floor():
    """embeddings defaults to none; with encoder the floor defaults to the encoder path's own
    (CV-chosen) value unless the policy sets one, and the dump says which floor applies."""
    assert parse_policy(BASE_YAML).classifier.embeddings == "none"
    on = parse_policy("classifier:\n  embeddings: encoder\n" + BASE_YAML).classifier
    assert (on.embeddings, on.confidence_floor) == ("encoder", ENCODER_CONFIDENCE_FLOOR)
    assert (on.embedding_weight, on.embedding_c, on.encoder_model) == (
        ENCODER_EMBEDDING_WEIGHT,
        ENCODER_EMBEDDING_C,
        None,
    )
    own = parse_policy(
        "classifier:\n  embeddings: encoder\n  confidence_floor: 0.3\n"
        "  embedding_weight: 1.5\n  encoder_model: models/enc\n" + BASE_YAML
    ).classifier
    assert (own.confidence_floor, own.embedding_weight, own.encoder_model) == (
        0.3,
        1.5,
        "models/enc",
    )
    assert ClassifierSettings(embeddings="encoder").confidence_floor == ENCODER_CONFIDENCE_FLOOR
    dumped = parse_policy("classifier:\n  embeddings: encoder\n" + BASE_YAML).model_dump()
    assert dumped["classifier"]["confidence_floor"] == ENCODER_CONFIDENCE_FLOOR


def test_valid_judge_specs_are_accepted():
    """Every spec grammar make_judge knows validates."""
    specs = (
        "[local, 'openai:gpt-4.1-mini', 'anthropic:claude-x', 'openai-compatible:m@http://h:1/v1']"
    )
    policy = parse_policy(f"scorer:\n  verifiers: {specs}\n" + BASE_YAML)
    assert len(policy.scorer.verifiers) == 4


def test_local_verifier_specs_follow_make_judge():
    """A policy may name the trained offline verifier; an unknown verifier is refused."""
    policy = parse_policy("scorer:\n  judge: local:trained\n" + BASE_YAML)
    assert policy.scorer.judge == "local:trained"
    err = _error("scorer:\n  judge: local:magic\n" + BASE_YAML)
    assert err.key_path == "scorer.judge" and "rules, trained" in err.problem


def test_on_error_escalate_needs_a_queue():
    """on_error: escalate on a topic without on_flag.escalate is rejected at topics[i].on_error."""
    text = BASE_YAML.replace("    threshold: 0.5\n", "    threshold: 0.5\n    on_error: escalate\n")
    err = _error(text)
    assert err.key_path == "topics[0].on_error"
    assert "names no queue" in err.problem


def test_blank_keywords_and_examples_are_rejected():
    """A blank keyword would match nothing useful; it is rejected at its index."""
    text = BASE_YAML.replace(
        "    threshold: 0.5\n", "    threshold: 0.5\n    keywords: [ok, '  ']\n"
    )
    assert _error(text).key_path == "topics[0].keywords[1]"


def test_empty_and_missing_topics_are_rejected():
    """A policy needs at least one topic."""
    assert _error("name: x\ntopics: []\n").key_path == "topics"
    err = _error("name: x\n")
    assert (err.key_path, err.problem) == ("topics", "required key is missing")


def test_error_reports_the_yaml_line():
    """Validation errors carry the line of the offending key in the file."""
    text = BASE_YAML.replace(
        "threshold: 0.3\n    on_flag:\n      cite", "threshold: 3\n    on_flag:\n      cite"
    )
    err = _error(text)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "threshold: 3" in row)
    assert err.key_path == "topics[2].threshold"
    assert f"(line {line})" in err.problem


def test_several_errors_are_summarised_on_one_line():
    """With several problems the first is explained and the others are listed by key path."""
    text = BASE_YAML.replace("threshold: 0.5", "threshold: 5").replace("version: 1", "version: 0")
    err = _error(text)
    assert err.key_path == "version"
    assert "(+1 more: topics[0].threshold)" in err.problem
    assert "\n" not in str(err)


def test_unknown_key_is_reported_before_the_missing_key_it_causes():
    """A typo'd required key reports 'unknown key; did you mean' rather than 'missing'."""
    err = _error(BASE_YAML.replace("    threshold: 0.5\n", "    treshold: 0.5\n"))
    assert err.key_path == "topics[0].treshold"
    assert "did you mean 'threshold'" in err.problem
    assert "topics[0].threshold" in err.problem  # listed among the other errors


def test_yaml_syntax_error_names_line_and_column():
    """Broken YAML is a PolicyError with the line, not a yaml.YAMLError."""
    err = _error("name: x\ntopics:\n  - name: general\n   threshold: [0.5\n")
    assert err.key_path == ""
    assert err.problem.startswith("YAML syntax error at line")
    assert str(err).startswith("p.yaml: YAML syntax error")


def test_duplicate_yaml_keys_are_rejected():
    """PyYAML keeps the last duplicate silently; the loader refuses the file instead."""
    text = BASE_YAML.replace("    threshold: 0.5\n", "    threshold: 0.5\n    threshold: 0.9\n")
    err = _error(text)
    assert err.key_path == "topics[0].threshold"
    assert err.problem == "duplicate key at line 6 (first at line 5)"


@pytest.mark.parametrize(
    ("text", "problem"),
    [("", "the file is empty"), ("# only a comment\n", "the file is empty"),
     ("- a\n- b\n", "expected a mapping at the top level, got list"),
     ("just text", "expected a mapping at the top level, got str")],
)  # fmt: skip
def test_empty_or_non_mapping_documents_are_rejected(text: str, problem: str):
    """The top level must be a mapping."""
    assert problem in _error(text).problem


def test_multiple_yaml_documents_are_rejected():
    """A stream with two documents is ambiguous and rejected."""
    assert "YAML syntax error" in _error(BASE_YAML + "---\nname: other\n").problem


def test_yaml_tags_that_build_objects_are_refused():
    """The loader is safe: python/object tags are a syntax error, never executed."""
    err = _error("name: !!python/object/apply:os.system ['true']\ntopics: []\n")
    assert "YAML syntax error" in err.problem


def test_default_source_name():
    """Without a source, errors name '<string>'."""
    with pytest.raises(PolicyError, match=r"^<string>: "):
        parse_policy("name: x\n")


def test_key_path_formatting_round_trips():
    """format_key_path and parse_key_path are inverses."""
    loc = ("topics", 2, "on_flag", "escalate", "queue")
    assert format_key_path(loc) == "topics[2].on_flag.escalate.queue"
    assert parse_key_path("topics[2].on_flag.escalate.queue") == loc
    assert format_key_path(("scorer", "verifiers", 0)) == "scorer.verifiers[0]"


def test_policy_is_immutable():
    """A loaded policy cannot be changed in place (its hash would silently go stale)."""
    policy = parse_policy(BASE_YAML)
    with pytest.raises(ValueError):
        policy.name = "other"  # type: ignore[misc]
