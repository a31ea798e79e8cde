"""``guardrail calibrate --from-reviews`` on a generated review history."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from guardrail.cli import main
from guardrail.policy import load_policy
from tests.report.conftest import History, make_history

POLICY = Path(__file__).resolve().parents[2] / "policies" / "default.yaml"


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> History:
    """900 turns; healthcare answers are truly hallucinated from 0.5 (the policy says 0.3)."""
    return make_history(tmp_path_factory.mktemp("reviewed"), turns=900, seed=31,
                        true_threshold={"healthcare": 0.5}, label_noise=0.03)  # fmt: skip


def test_proposes_a_diff_and_writes_only_out(reviewed: History, tmp_path, capsys) -> None:
    """The healthcare threshold moves to about 0.5 in a diff; --out gets it, the input not."""
    before = POLICY.read_text()
    out = tmp_path / "proposed.yaml"
    code = main(["calibrate", "--from-reviews", str(reviewed.db), "--audit", str(reviewed.audit),
                 "--policy", str(POLICY), "--out", str(out), "--min-labels", "30"])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "general: REFUSED, 0 labels" in printed
    assert re.search(r"-    threshold: 0\.3\n\+    threshold: 0\.(4[5-9]|5[0-5])", printed)
    assert POLICY.read_text() == before
    proposed = {t.name: t.threshold for t in load_policy(out).topics}
    assert abs(proposed["healthcare"] - 0.5) <= 0.05
    assert proposed["general"] == 0.5


def test_refuses_every_topic_with_too_few_labels(reviewed: History, capsys) -> None:
    """A minimum no topic reaches: every topic refused, exit 1, nothing proposed."""
    code = main(["calibrate", "--from-reviews", str(reviewed.db), "--policy", str(POLICY),
                 "--min-labels", "100000"])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 1
    assert "needs at least 100000 labels" in printed
    assert "no threshold change proposed" in printed


def test_out_must_differ_from_the_policy(reviewed: History, capsys) -> None:
    """The policy file is never overwritten."""
    code = main(["calibrate", "--from-reviews", str(reviewed.db), "--policy", str(POLICY),
                 "--out", str(POLICY)])  # fmt: skip
    assert code == 2
    assert "--out must differ" in capsys.readouterr().err


def test_dataset_mode_still_needs_its_arguments(capsys) -> None:
    """Without --from-reviews, a dataset and --out are required as before."""
    assert main(["calibrate", "--policy", str(POLICY)]) == 2
    assert "DATASET and --out are required" in capsys.readouterr().err
