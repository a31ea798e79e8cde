"""The attack corpus, re-runnable: every case's status, time and memory against a real server
and the real command line.

Service cases go to one ``guardrail serve`` on 127.0.0.1 (default policy and limits, an API key,
the review page on); memory is the server process's resident size after the case and its peak
so far. Command-line cases run ``python -m guardrail ...`` in a
child process; memory is that child's peak resident size, and the note gives the time over
the same command's start-up (interpreter and imports, measured first on a missing input file).
A case passes when it is answered within 2 s with the expected status (a 4xx, or exit 2 for
the command line; a turn carrying odd text is *answered* — 200 — and must have its audit
record) using less than 500 MB. Text cases run each parser and splitter in this process on a
pathological 1 MB input (the forms of ``tests/hostile/test_linear_text.py``) and pass when it
finishes within 2 s; their memory is not measured.

Proxy cases go to one ``guardrail proxy`` on 127.0.0.1 (default policy and limits, an API
key) in front of a fake upstream the benchmark serves on 127.0.0.1
(:mod:`benchmarks._proxy_cases`); they pass on the expected status *and* an audit record for
every answered turn *and* a client shown exactly the text the record says the guard let
through, within 2 s and 500 MB of the proxy process. Their time includes the upstream's
(50 MB to send, a stream until a bound cuts it); the note gives the guard's share where the
proxy reports it (``Server-Timing``, non-streamed replies).

    python -m benchmarks.hostile_corpus [--parts service,proxy,cli,text] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

from benchmarks._common import repo_root, write_results
from benchmarks._proxy_cases import PROXY_CASES, Checked, fake_upstream
from benchmarks._serve import API_KEY, REVIEWER_TOKEN, Server, proxy, serve
from guardrail.server.testing import serve_in_thread

KEY = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
POLICY = repo_root() / "policies" / "default.yaml"
FACTS = repo_root() / "examples" / "probe" / "healthcare.yaml"
CHATBOT = f"{repo_root() / 'examples' / 'probe' / 'chatbot.py'}:answer"
DEEP = "[" * 100_000 + "]" * 100_000
TURN = {"question": "q?", "answer": "An answer.", "contexts": ["A passage."]}
ROW = {"id": "r1", "task": "qa", "question": "q", "context": "c", "answer": "a", "label": 0}
SENSITIVE = {
    "question": "Can pregnant women take ibuprofen?",
    "answer": "Yes, ibuprofen is safe throughout pregnancy.",
    "contexts": ["Ibuprofen is contraindicated in the third trimester of pregnancy."],
}
TIME_LIMIT_S = 2.0
MEMORY_LIMIT_MB = 500.0


@dataclass
class Outcome:
    case: str
    expected: str
    status: str
    seconds: float
    memory_mb: float | None  # None: not measured (text cases run in this process)
    ok: bool
    note: str = ""


# -- service cases ----------------------------------------------------------------------------


def tiny_items(item: bytes) -> bytes:
    n = (3_990_000 - 60) // (len(item) + 1)
    return b'{"question": "q", "answer": "a", "contexts": [' + b",".join([item] * n) + b"]}"


def starvation_body() -> bytes:
    answer = " ".join(
        f"Distinct fact {i} concerns item {i * 7} of the catalogue." for i in range(200)
    )
    return json.dumps(
        {"question": "q", "answer": answer, "contexts": ["lorem ipsum " * 8_250] * 10}
    ).encode()


def surrogate_body(where: str) -> bytes:
    body = dict(SENSITIVE)
    if where == "answer":
        body["answer"] += " \ud83d"
    else:
        body["contexts"] = [SENSITIVE["contexts"][0] + " \ud83d"]
    return json.dumps(body).encode()


def post(server: Server, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/check", content=body, headers=headers or KEY, timeout=60)


def declared_100mb(server: Server) -> httpx.Response:
    """Headers declaring a 100 MB body, then only the first bytes of it (raw socket)."""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        head = (
            "POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {API_KEY}\r\nContent-Length: 100000000\r\n\r\n"
        )
        sock.sendall(head.encode() + b'{"question": "' + b"x" * 65536)
        reply = sock.recv(65536)
    return httpx.Response(int(reply.split(b" ", 2)[1]))


def logins_with_forwarded_for(server: Server) -> httpx.Response:
    """12 failed logins, each claiming another X-Forwarded-For: the last one's reply."""
    last: httpx.Response | None = None
    for n in range(12):
        with httpx.Client(base_url=server.url, timeout=30) as client:
            headers = {"X-Forwarded-For": f"10.0.0.{n}"}
            page = client.get("/review/login", headers=headers)
            found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
            csrf = found.group(1) if found else ""
            last = client.post(
                "/review/login",
                data={"token": "wrong-" + REVIEWER_TOKEN, "csrf_token": csrf},
                headers=headers,
            )
    assert last is not None
    return last


def logins_from_loopback_addresses(server: Server) -> httpx.Response:
    """30 failed logins, each from another loopback source address: the last one's reply."""
    last: httpx.Response | None = None
    for n in range(30):
        transport = httpx.HTTPTransport(local_address=f"127.0.{n}.{n + 1}")
        with httpx.Client(base_url=server.url, timeout=30, transport=transport) as client:
            page = client.get("/review/login")
            found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
            last = client.post(
                "/review/login",
                data={
                    "token": "wrong-" + REVIEWER_TOKEN,
                    "csrf_token": found.group(1) if found else "",
                },
            )
    assert last is not None
    return last


SERVICE_CASES: list[tuple[str, str, Callable[[Server], httpx.Response]]] = [
    (
        "30 failed logins from 30 loopback addresses (time: per login)",
        "429",
        logins_from_loopback_addresses,
    ),
    (
        "1 MB body: 200 sentences x 10 contexts of 99 KB",
        "413",
        lambda s: post(s, starvation_body()),
    ),
    ("4 MB body of 2 million list items [1,1,...]", "413", lambda s: post(s, tiny_items(b"1"))),
    ("4 MB body of 1.3 million {} items", "413", lambda s: post(s, tiny_items(b"{}"))),
    ("4 MB body of 1.3 million [] items", "413", lambda s: post(s, tiny_items(b"[]"))),
    ("body nested 100,000 deep", "422", lambda s: post(s, b'{"contexts": ' + DEEP.encode() + b"}")),
    (
        "integer literal of 100,000 digits",
        "422",
        lambda s: post(s, b'{"q": ' + b"9" * 10**5 + b"}"),
    ),
    (
        "100 MB body declared",
        "413",
        declared_100mb,
    ),
    (
        "lone surrogate in the answer (sensitive turn)",
        "200+audit",
        lambda s: post(s, surrogate_body("answer")),
    ),
    (
        "lone surrogate in a context (sensitive turn)",
        "200+audit",
        lambda s: post(s, surrogate_body("contexts")),
    ),
    ("wrong API key", "401", lambda s: post(s, json.dumps(TURN).encode(), {"X-API-Key": "nope"})),
    ("/metrics without the API key", "401", lambda s: httpx.get(f"{s.url}/metrics", timeout=30)),
    (
        "12 failed logins, each with another X-Forwarded-For (time: per login)",
        "429",
        logins_with_forwarded_for,
    ),
]


def run_service_case(
    server: Server, name: str, expected: str, fn: Callable[[Server], httpx.Response]
) -> Outcome:
    started = time.perf_counter()
    try:
        r = fn(server)
        status, note = str(r.status_code), ""
    except (httpx.HTTPError, OSError) as exc:
        r, status, note = None, type(exc).__name__, str(exc)[:80]
    seconds = time.perf_counter() - started
    if fn is logins_with_forwarded_for:
        seconds /= 12
    if fn is logins_from_loopback_addresses:
        seconds /= 30
    rss, peak = server.rss_mb()
    ok_status = status == expected
    if expected == "200+audit" and r is not None and status == "200":
        audited = {t["audit_id"] for t in server.audited_turns()}
        ok_status = r.json()["audit_id"] in audited
        status = "200+audit" if ok_status else "200, no audit record"
    ok = ok_status and seconds < TIME_LIMIT_S and peak < MEMORY_LIMIT_MB
    return Outcome(name, expected, status, seconds, peak, ok, note or f"server rss {rss:.0f} MB")


def run_proxy_case(
    server: Server, name: str, expected: str, fn: Callable[[Server], Checked]
) -> Outcome:
    started = time.perf_counter()
    try:
        checked = fn(server)
    except (httpx.HTTPError, OSError, ValueError) as exc:
        checked = Checked(type(exc).__name__, False, str(exc)[:80])
    seconds = time.perf_counter() - started
    rss, peak = server.rss_mb()
    ok = checked.ok and seconds < TIME_LIMIT_S and peak < MEMORY_LIMIT_MB
    guard = "" if checked.guard_ms is None else f"guard {checked.guard_ms / 1000:.2f} s; "
    note = f"{guard}rss {rss:.0f} MB; {checked.note}"
    return Outcome(f"proxy: {name}", expected, checked.status, seconds, peak, ok, note)


def run_proxy_cases(folder: Path) -> tuple[list[Outcome], int]:
    """Every proxy case against one ``guardrail proxy``; the outcomes and its turn records."""
    with (
        serve_in_thread(fake_upstream()) as upstream_url,
        proxy(folder, f"{upstream_url}/v1") as server,
    ):
        outcomes = [run_proxy_case(server, *case) for case in PROXY_CASES]
        time.sleep(1.0)  # a stream's record may follow its last byte
        return outcomes, len(server.audited_turns())


# -- command-line cases -------------------------------------------------------------------


def baselines() -> dict[str, list[str]]:
    """One invocation per command that fails at once on a missing file (exit 2)."""
    return {
        "eval": ["eval", "missing.jsonl"],
        "rescore": ["rescore", "missing.jsonl", "--policy", str(POLICY), "--out", "o.jsonl"],
        "probe": ["probe", "missing.yaml", "--chatbot", CHATBOT],
        "policy": ["policy", "validate", "missing.yaml"],
        "check": ["check", "-a", "@missing.txt", "-c", "context"],
    }


def cli_cases(tmp: Path) -> list[tuple[str, list[str]]]:
    def write(name: str, text: str) -> str:
        path = tmp / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    data = write("rows.jsonl", json.dumps(ROW) + "\n")
    bomb = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    bomb += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    chat = write("chat.jsonl", json.dumps(TURN) + "\n")
    out = str(tmp / "out.jsonl")
    nan = write("nan.jsonl", json.dumps(TURN)[:-1] + ', "score": NaN}\n')
    inf = write("inf.jsonl", json.dumps(TURN)[:-1] + ', "score": 1e999}\n')
    xss = write("xss.jsonl", json.dumps({**TURN, "decision": "<script>"}) + "\n")
    rescore = ["--policy", str(POLICY), "--out", out]
    header = json.dumps(
        {"kind": "header", "version": 1, "method": "metarag", "judge": "local-trained"}
    )

    def resume(name: str, line: str) -> str:
        return write(name, header + "\n" + line + "\n")

    fifo = tmp / "out.fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    unbounded = POLICY.read_text().replace("max_attempts: 4", "max_attempts: 99999999999999999999")
    return [
        ("eval: dataset nested 100,000 deep", ["eval", write("deep.jsonl", DEEP + "\n")]),
        (
            "rescore: chat log nested 100,000 deep",
            ["rescore", write("deepchat.jsonl", DEEP + "\n"), *rescore],
        ),
        (
            "eval: resume file nested 100,000 deep",
            ["eval", data, "--resume-file", write("resume.jsonl", DEEP + "\n" + DEEP + "\n")],
        ),
        (
            "probe: fact file nested 100,000 deep",
            ["probe", write("deep.yaml", DEEP), "--chatbot", CHATBOT],
        ),
        (
            "probe: fact file with a 9-level alias bomb",
            ["probe", write("bomb.yaml", "\n".join(bomb) + "\n"), "--chatbot", CHATBOT],
        ),
        ("policy validate: 200 KB of brackets", ["policy", "validate", write("p.yaml", DEEP)]),
        (
            "policy validate: max_attempts 99999999999999999999",
            ["policy", "validate", write("unbounded.yaml", unbounded)],
        ),
        (
            "probe --html-out DIR",
            ["probe", str(FACTS), "--chatbot", CHATBOT, "--html-out", str(tmp)],
        ),
        (
            "probe --json-out DIR",
            ["probe", str(FACTS), "--chatbot", CHATBOT, "--json-out", str(tmp)],
        ),
        (
            "probe --max-depth 1000000",
            ["probe", str(FACTS), "--chatbot", CHATBOT, "--max-depth", "1000000"],
        ),
        ("eval --json-out DIR", ["eval", data, "--json-out", str(tmp)]),
        ("rescore --out DIR", ["rescore", chat, "--policy", str(POLICY), "--out", str(tmp)]),
        ("rescore: chat log with score NaN", ["rescore", nan, *rescore]),
        ("rescore: chat log with score 1e999", ["rescore", inf, *rescore]),
        ("rescore: decision <script>", ["rescore", xss, *rescore]),
        ("check: undecodable argument bytes", ["check", "-a", "caf\udce9", "-c", "context"]),
        (
            'eval: resume file whose first line is ["a"]',
            ["eval", data, "--resume-file", write("list.jsonl", '["a"]\n')],
        ),
        (
            "eval: resume file with a score of NaN",
            [
                "eval",
                data,
                "--resume-file",
                resume("nan.progress", '{"id": "r1", "ok": true, "score": NaN}'),
            ],
        ),
        (
            "eval: resume file with a score of 5.0",
            [
                "eval",
                data,
                "--resume-file",
                resume("five.progress", '{"id": "r1", "ok": true, "score": 5.0}'),
            ],
        ),
        (
            "eval --json-out /proc/guardrail-hostile",
            ["eval", data, "--json-out", "/proc/guardrail-hostile"],
        ),
        (
            "probe --html-out FIFO",
            ["probe", str(FACTS), "--chatbot", CHATBOT, "--html-out", str(fifo)],
        ),
        ("rescore --out FIFO", ["rescore", chat, "--policy", str(POLICY), "--out", str(fifo)]),
    ]


# -- text cases (in this process) ------------------------------------------------------------


def run_text_cases() -> list[Outcome]:
    """Each parser and splitter on each pathological 1 MB form, timed once."""
    from tests.hostile.test_linear_text import DEVELOPMENT, HELD_OUT

    outcomes: list[Outcome] = []
    for half, forms in (("development", DEVELOPMENT), ("held-out", HELD_OUT)):
        for name, fn in forms.items():
            started = time.perf_counter()
            fn()
            seconds = time.perf_counter() - started
            ok = seconds < TIME_LIMIT_S
            outcomes.append(Outcome(f"text: {name}", "< 2 s", "done", seconds, None, ok, half))
    return outcomes


#: Runs ``python -m guardrail ARGS`` and writes the process's own peak resident size (VmHWM,
#: kB) to the file named first. VmHWM belongs to the process image after exec; getrusage's
#: ru_maxrss would also count the benchmark's own memory (Linux keeps it across fork + exec).
_LAUNCHER = (
    "import atexit, re, runpy, sys\n"
    "out = sys.argv.pop(1)\n"
    "def peak():\n"
    "    text = open('/proc/self/status').read()\n"
    "    open(out, 'w').write(re.search(r'VmHWM:\\s+(\\d+)', text).group(1))\n"
    "atexit.register(peak)\n"
    "sys.argv[0] = 'guardrail'\n"
    "runpy.run_module('guardrail', run_name='__main__', alter_sys=True)\n"
)


def run_cli(argv: list[str], cwd: Path) -> tuple[int, str, float, float]:
    """Exit code, stderr, seconds and peak MB of ``guardrail ARGV`` in a child process."""
    env = {**os.environ, "PYTHONPATH": str(repo_root())}
    peak_file = cwd / "peak.txt"
    args = [sys.executable, "-c", _LAUNCHER, str(peak_file), *argv]
    started = time.perf_counter()
    proc = subprocess.run(
        [os.fsencode(a) for a in args], env=env, cwd=cwd, capture_output=True, timeout=300
    )
    seconds = time.perf_counter() - started
    peak = int(peak_file.read_text()) / 1024 if peak_file.exists() else float("nan")
    return proc.returncode, proc.stderr.decode("utf-8", "replace").strip(), seconds, peak


def run_cli_case(name: str, argv: list[str], cwd: Path, startup_s: float) -> Outcome:
    code, err, seconds, peak = run_cli(argv, cwd)
    lines = err.splitlines()
    one_line = len(lines) == 1 and "Traceback" not in err
    ok = code == 2 and one_line and seconds < TIME_LIMIT_S and peak < MEMORY_LIMIT_MB
    note = f"{seconds - startup_s:+.2f} s over start-up; " + (lines[0] if lines else "")[:80]
    return Outcome(name, "exit 2", f"exit {code}", seconds, peak, ok, note)


def _cli_half(tmp: Path, outcomes: list[Outcome]) -> tuple[list[str], bool, dict[str, float]]:
    """The command-line cases: their outcomes (added to ``outcomes``), leftover files, whether
    the FIFO survived, each command's start-up time."""
    (tmp / "cli").mkdir()
    cwd = tmp / "cli" / "cwd"
    cwd.mkdir()
    # Each command's start-up (interpreter, imports) on a missing input file: the floor
    # every invocation of it pays, whatever it is given.
    startup = {
        cmd: min(run_cli(argv, cwd)[2] for _ in range(2)) for cmd, argv in baselines().items()
    }
    for name, cli_argv in cli_cases(tmp / "cli"):
        outcomes.append(run_cli_case(name, cli_argv, cwd, startup[cli_argv[0]]))
    leftovers = sorted(
        p.name
        for p in (tmp / "cli").iterdir()
        if p.suffix == ".tmp" or (p.suffix == ".progress" and p.name.startswith("out"))
    )
    return leftovers, stat.S_ISFIFO((tmp / "cli" / "out.fifo").stat().st_mode), startup


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json-out", type=Path, default=None)
    parser.add_argument(
        "--parts", default="service,proxy,cli,text", help="which halves to run (comma-separated)"
    )
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    console = Console()
    outcomes: list[Outcome] = []
    turns: list[dict[str, object]] = []
    proxy_turns = 0
    leftovers: list[str] = []
    fifo_kept = True
    startup: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if "service" in parts:
            (tmp / "server").mkdir()
            with serve(tmp / "server", review_ui=True) as server:
                for name, expected, fn in SERVICE_CASES:
                    outcomes.append(run_service_case(server, name, expected, fn))
                turns = server.audited_turns()
        if "proxy" in parts:
            (tmp / "proxy").mkdir()
            proxied, proxy_turns = run_proxy_cases(tmp / "proxy")
            outcomes.extend(proxied)
        if "cli" in parts:
            leftovers, fifo_kept, startup = _cli_half(tmp, outcomes)
    if "text" in parts:
        outcomes.extend(run_text_cases())
    table = Table(title=f"Hostile corpus (target: < {TIME_LIMIT_S:g} s, < {MEMORY_LIMIT_MB:g} MB)")
    for col in ("case", "expected", "status", "seconds", "peak MB", "ok", "note"):
        table.add_column(col, overflow="fold")
    for o in outcomes:
        memory = "n/a" if o.memory_mb is None else f"{o.memory_mb:.0f}"
        table.add_row(o.case, o.expected, o.status, f"{o.seconds:.3f}", memory,
                      "yes" if o.ok else "NO", o.note)  # fmt: skip
    console.print(table)
    failed = [o.case for o in outcomes if not o.ok]
    if not fifo_kept:
        failed.append("the FIFO given as an output path was replaced")
    summary = {
        "cases": len(outcomes),
        "passed": len(outcomes) - len(failed),
        "failed": failed,
        "service_turn_records": len(turns),
        "proxy_turn_records": proxy_turns,
        "leftover_tmp_or_progress_files": leftovers,
        "fifo_still_a_fifo": fifo_kept,
        "cli_startup_s": {k: round(v, 3) for k, v in startup.items()},
    }
    console.print(summary)
    out = write_results(
        "hostile_corpus", {"outcomes": [o.__dict__ for o in outcomes], **summary}, args.json_out
    )
    console.print(f"wrote {out}")
    return 0 if not failed else 1


if __name__ == "__main__":
    raise SystemExit(main())
