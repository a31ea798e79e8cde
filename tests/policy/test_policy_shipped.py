"""The shipped policies validate, the default policy says what the README says, the schema
file is current, and the CLI's validate/schema commands behave."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from guardrail.cli import main
from guardrail.cli.policy import schema_text
from guardrail.policy import Policy, load_policy
from tests.policy.factories import BASE_YAML, DEFAULT_POLICY, POLICIES

SHIPPED = sorted(p for p in POLICIES.glob("*.yaml") if not p.name.endswith(".cases.yaml"))


def test_there_are_several_shipped_policies():
    """default.yaml plus at least one domain example ship with the project."""
    assert DEFAULT_POLICY in SHIPPED
    assert len(SHIPPED) >= 3


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_policy_validates(path: Path):
    """Every policy under policies/ loads; its name matches the file name."""
    policy = load_policy(path)
    assert policy.name == path.stem


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_policy_matches_the_json_schema(path: Path):
    """The generated JSON Schema accepts the shipped files (what editors will check)."""
    jsonschema.validate(yaml.safe_load(path.read_text()), json.loads(schema_text()))


def test_default_policy_thresholds_and_queues():
    """Default: general 0.5; pregnancy, healthcare, asylum, labour 0.3, sensitive, cited, queued."""
    policy = load_policy(DEFAULT_POLICY)
    general = policy.topic("general")
    assert (general.threshold, general.sensitivity, general.on_error) == (0.5, "normal", "abstain")
    queues = {"healthcare": "clinical-review", "pregnancy": "clinical-review",
              "asylum": "asylum", "labour": "labour"}  # fmt: skip
    for name, queue in queues.items():
        rule = policy.topic(name)
        assert (rule.threshold, rule.sensitivity) == (0.3, "sensitive"), name
        assert rule.on_flag.cite and rule.on_flag.highlight, name
        assert rule.on_flag.escalate is not None and rule.on_flag.escalate.queue == queue, name
        assert rule.on_error == "escalate", name
    assert {t.name for t in policy.topics} == {"general", *queues}


def test_default_policy_pregnancy_regenerates_once_and_asylum_abstains():
    """Pregnancy regenerates once before escalating; asylum abstains asking for an expert."""
    policy = load_policy(DEFAULT_POLICY)
    regen = policy.topic("pregnancy").on_flag.regenerate
    assert regen is not None and regen.max_attempts == 1
    abstain = policy.topic("asylum").on_flag.abstain
    assert abstain is not None and "expert verification" in abstain.message.lower()
    escalate = policy.topic("asylum").on_flag.escalate
    assert escalate is not None and "expert verification" in escalate.message.lower()


def test_finance_and_legal_topics_live_only_in_domain_examples():
    """The default policy stays general-purpose; finance/legal topics are in the examples."""
    default_names = {t.name for t in load_policy(DEFAULT_POLICY).topics}
    assert not default_names & {"legal", "debt", "fraud", "tax", "investments"}
    assert load_policy(POLICIES / "finance.yaml").has_topic("debt")
    assert load_policy(POLICIES / "legal-aid.yaml").has_topic("legal")


def test_schema_file_is_current():
    """policies/policy.schema.json equals `guardrail schema` output (regenerate it if not)."""
    stored = (POLICIES / "policy.schema.json").read_text(encoding="utf-8")
    assert stored == schema_text(), (
        "run: python -m guardrail schema --out policies/policy.schema.json"
    )


def test_schema_forbids_unknown_keys():
    """Every object in the schema sets additionalProperties: false, like the models."""
    schema = Policy.json_schema()
    assert schema["additionalProperties"] is False
    assert all(d["additionalProperties"] is False for d in schema["$defs"].values())


# -- CLI -------------------------------------------------------------------------------------


def test_cli_validate_ok(capsys: pytest.CaptureFixture[str]):
    """`guardrail policy validate` prints name, topic count and hash, exit 0."""
    assert main(["policy", "validate", str(DEFAULT_POLICY)]) == 0
    policy = load_policy(DEFAULT_POLICY)
    out = capsys.readouterr().out
    assert out == f"OK: default ({len(policy.topics)} topics) sha256={policy.content_hash}\n"


def test_cli_validate_invalid_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """An invalid policy prints the one-line error on stderr, exit 2, no traceback."""
    path = tmp_path / "bad.yaml"
    path.write_text(BASE_YAML.replace("threshold: 0.5", "threshold: 7"))
    assert main(["policy", "validate", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"guardrail: error: {path}: topics[0].threshold: ")
    assert "Traceback" not in captured.err


def test_cli_validate_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """A missing file is exit 2 with a one-line message."""
    missing = tmp_path / "missing.yaml"
    assert main(["policy", "validate", str(missing)]) == 2
    assert capsys.readouterr().err == f"guardrail: error: {missing}: file not found\n"


def test_cli_schema_prints_json(capsys: pytest.CaptureFixture[str]):
    """`guardrail schema` prints the JSON Schema of policy files."""
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "guardrail policy"
    assert "topics" in schema["required"]


def test_cli_schema_out_writes_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """`guardrail schema --out FILE` writes the same text the repository stores."""
    out = tmp_path / "schema.json"
    assert main(["schema", "--out", str(out)]) == 0
    assert out.read_text() == schema_text()


def test_cli_schema_out_unwritable(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """An unwritable --out path is a one-line config error, exit 2 (missing directories are
    made; a directory that is a file cannot be)."""
    (tmp_path / "a-file").write_text("x")
    assert main(["schema", "--out", str(tmp_path / "a-file" / "dir.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("guardrail: error: --out ") and "is not a directory" in err
    assert err.count("\n") == 1
