"""``guardrail serve``: token configuration, refusal without tokens, and the app it builds."""

from __future__ import annotations

import httpx
import pytest

from guardrail.cli import build_parser, main
from guardrail.cli import serve as serve_cli
from guardrail.exceptions import ConfigError
from guardrail.server.testing import serve_in_thread

GOOD = "alice:" + "a" * 24


def args(*argv: str):
    words = ["serve", *argv]
    return build_parser(words).parse_args(words)


def test_parse_tokens_accepts_lines_commas_and_comments():
    """'reviewer:token' entries split on newlines or commas; comments and blanks ignored."""
    text = "# reviewers\nalice:" + "a" * 20 + ", bob : " + "b" * 20 + "\n\n"
    assert serve_cli.parse_tokens(text, "f") == {"a" * 20: "alice", "b" * 20: "bob"}


@pytest.mark.parametrize(
    ("text", "secret", "message"),
    [
        ("Zq9xZq9xZq9xZq9xZq9x", "Zq9x", "entry 1 is not 'reviewer:token'"),
        ("alice:Zq9x", "Zq9x", "shorter than 16"),
        (f"{GOOD}\nbob:{'a' * 24}", "a" * 24, "reuses another reviewer's token"),
    ],
)
def test_parse_tokens_rejects_bad_entries_without_echoing_secrets(text, secret, message):
    """Malformed, weak or shared tokens are ConfigErrors that never print the token."""
    with pytest.raises(ConfigError, match=message) as info:
        serve_cli.parse_tokens(text, "tokens.txt")
    assert secret not in str(info.value)


def test_serve_refuses_without_tokens_and_says_how(capsys, tmp_path):
    """No reviewer token: exit 2 with a one-line hint on how to configure one."""
    code = main(["serve", "--db", str(tmp_path / "r.sqlite3")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "--tokens-file" in err and "--tokens-env" in err and "--no-review-ui" in err


def test_serve_needs_the_env_vars_it_names(capsys, monkeypatch, tmp_path):
    """An option naming an unset environment variable is a clear error (exit 2)."""
    monkeypatch.delenv("GR_TEST_TOKENS", raising=False)
    code = main(["serve", "--tokens-env", "GR_TEST_TOKENS", "--db", str(tmp_path / "r.db")])
    assert code == 2 and "GR_TEST_TOKENS is not set" in capsys.readouterr().err


def test_build_checker_explains_missing_pieces(tmp_path):
    """Without --policy, or without the guard module, the error says what is missing."""
    with pytest.raises(ConfigError, match="--policy"):
        serve_cli.build_checker(None)
    try:
        import guardrail.guard  # noqa: F401
    except ImportError:
        with pytest.raises(ConfigError, match="guard is not available"):
            serve_cli.build_checker(tmp_path / "p.yaml")


def test_built_app_serves_api_key_and_review_login(tmp_path, monkeypatch, checker):
    """Tokens from a file and the API key from an env var configure the running service."""
    tokens = tmp_path / "reviewers.txt"
    tokens.write_text(GOOD + "\n")
    monkeypatch.setenv("GR_TEST_KEY", "k" * 32)
    app = serve_cli.build_app(
        args("--tokens-file", str(tokens), "--api-key-env", "GR_TEST_KEY",
             "--db", str(tmp_path / "r.sqlite3")),
        checker=checker,
    )  # fmt: skip
    body = {"question": "q", "answer": "a", "contexts": []}
    with serve_in_thread(app) as base, httpx.Client(base_url=base) as c:
        assert c.post("/v1/check", json=body).status_code == 401
        assert c.post("/v1/check", json=body, headers={"X-API-Key": "k" * 32}).status_code == 200
        page = c.get("/review/login")
        assert page.status_code == 200 and "Reviewer login" in page.text


def test_no_review_ui_serves_only_the_api(tmp_path, checker):
    """--no-review-ui needs no tokens and mounts no review routes."""
    app = serve_cli.build_app(args("--no-review-ui", "--db", str(tmp_path / "r.db")), checker)
    with serve_in_thread(app) as base:
        assert httpx.get(f"{base}/review/login").status_code == 404
        assert httpx.get(f"{base}/healthz").status_code == 200


def test_a_serving_process_is_tuned_for_a_responsive_request_loop():
    """Run in a fresh interpreter (the settings are process-wide): a 1 ms thread switch
    interval, start-up objects frozen out of the collector, young collections every 10,000
    allocations instead of 700."""
    import subprocess
    import sys

    code = (
        "import gc, sys\n"
        "from guardrail.server.app import GC_YOUNG_THRESHOLD, tune_serving_process\n"
        "before = gc.get_threshold()\n"
        "tune_serving_process()\n"
        "after = gc.get_threshold()\n"
        "assert after == (GC_YOUNG_THRESHOLD, before[1], before[2]), (before, after)\n"
        "assert GC_YOUNG_THRESHOLD > before[0]\n"
        "assert gc.get_freeze_count() > 1000, gc.get_freeze_count()\n"
        "assert sys.getswitchinterval() == 0.001\n"
        "print('tuned')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "tuned"
