"""``write_policy_threshold`` edits the policy text: comments and layout survive."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from guardrail.evaluation.calibrate import write_policy_threshold
from guardrail.policy.loader import load_policy

DEFAULT = Path(__file__).resolve().parents[2] / "policies" / "default.yaml"


def comments(text: str) -> list[str]:
    return [line.split("#", 1)[1].strip() for line in text.splitlines() if "#" in line]


def test_the_packaged_policy_keeps_every_comment(tmp_path):
    out = tmp_path / "tuned.yaml"
    changed = write_policy_threshold(
        DEFAULT, out, 0.275, topic="pregnancy", note="threshold 0.275 set by a test"
    )
    assert changed == ["pregnancy"]
    before, after = DEFAULT.read_text(), out.read_text()
    lines = after.splitlines()
    assert lines[0].startswith("# yaml-language-server:")  # the modeline stays first
    assert lines[1] == "# threshold 0.275 set by a test"
    assert comments(after) == [
        comments(before)[0],
        "threshold 0.275 set by a test",
        *comments(before)[1:],
    ]
    expected = yaml.safe_load(before)
    next(t for t in expected["topics"] if t["name"] == "pregnancy")["threshold"] = 0.275
    assert yaml.safe_load(after) == expected
    # only the one value changed: the rest of the text is byte-identical
    assert len(after.splitlines()) == len(before.splitlines()) + 1
    assert load_policy(out).topic("pregnancy").threshold == 0.275


def test_a_missing_threshold_is_added_inside_the_topic(tmp_path):
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "name: p  # the policy\nversion: 1\ntopics:\n"
        "  - name: general   # everyday questions\n    sensitivity: normal\n"
        "  - name: medical\n    threshold: 0.3  # strict\n"
    )
    out = tmp_path / "o.yaml"
    write_policy_threshold(policy, out, 0.00001, topic="*")
    text = out.read_text()
    assert "  - name: general   # everyday questions\n    threshold: 0.00001\n" in text
    assert "    threshold: 0.00001  # strict\n" in text
    assert comments(text) == ["the policy", "everyday questions", "strict"]
    assert [t["threshold"] for t in yaml.safe_load(text)["topics"]] == [0.00001, 0.00001]


@pytest.mark.parametrize(
    "topics",
    [
        "  - {name: general, sensitivity: normal}  # flow style, no threshold\n",
        "  - examples: [a, b]\n    name: >-\n      general\n"
        "    on_flag: {cite: true}  # no one-line scalar key\n",
    ],
)
def test_yaml_it_cannot_edit_in_place_is_re_dumped_correctly(tmp_path, topics):
    """The fallback loses comments but still writes exactly the intended document."""
    policy = tmp_path / "p.yaml"
    policy.write_text("name: p\nversion: 1\ntopics:\n" + topics)
    out = tmp_path / "o.yaml"
    write_policy_threshold(policy, out, 0.4, topic="general")
    expected = yaml.safe_load(policy.read_text())
    expected["topics"][0]["threshold"] = 0.4
    assert yaml.safe_load(out.read_text()) == expected
    assert "#" not in out.read_text()  # re-dumped: the comment is gone
