"""The citation-locked reader over a real Neo4j, against a stub OpenAI-compatible endpoint.

The stub is an `http.server` on 127.0.0.1 (a random port) started by the test; each test
scripts its answers. What is checked: the lock (only ids the model was shown count), the
abstention, temperature 0 and the token cap, usage/latency recording, retries on 429/5xx.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.errors import ReaderError
from kgmem.reader import ABSTENTION, Reader, ask

QUESTION = "Where did Ana move to?"
DATA = Path(__file__).resolve().parents[1] / "data"

#: a scripted reply: (status, body) from the parsed request
Script = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]


class Stub:
    """A chat-completions endpoint on a random loopback port; records every request body."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[Script] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), **body}
                )
                script = stub.replies.pop(0) if len(stub.replies) > 1 else stub.replies[0]
                status, reply = script(body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def completion(text: str) -> tuple[int, dict[str, Any]]:
    return 200, {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 321, "completion_tokens": 12},
    }


def cite_line_with(needle: str, *, by_number: bool = False) -> Script:
    """Answers by citing the numbered turn whose text contains ``needle``."""

    def script(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        for line in body["messages"][1]["content"].splitlines():
            match = re.match(r"\[(\d+)\] (\S+) ", line)
            if match and needle in line:
                ref = match.group(1) if by_number else match.group(2)
                return completion(f"Ana moved to Lisbon [{ref}].")
        return completion(ABSTENTION)

    return script


@pytest.fixture
def stub() -> Iterator[Stub]:
    server = Stub()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


def test_cited_answer_passes_the_lock(stub: Stub, memory: Memory, conversation: str) -> None:
    stub.replies = [cite_line_with("moved to Lisbon")]
    with Reader(stub.base_url, "stub-model", api_key="k-123", max_tokens=64) as reader:
        out = ask(memory, reader, QUESTION, conversation, k=5)
    assert not out.abstained and out.reason is None
    assert out.citations == [f"{conversation}:S2:1"]
    assert out.answer == f"Ana moved to Lisbon [{conversation}:S2:1]."
    assert (out.tokens_in, out.tokens_out) == (321, 12) and out.latency_ms > 0
    (request,) = stub.requests
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer k-123"
    assert (
        request["temperature"] == 0
        and request["max_tokens"] == 64
        and request["model"] == "stub-model"
    )
    assert len(out.turn_ids) == 5 and all(t.startswith(f"{conversation}:") for t in out.turn_ids)


def test_citation_by_number_maps_to_the_turn_id(
    stub: Stub, memory: Memory, conversation: str
) -> None:
    stub.replies = [cite_line_with("moved to Lisbon", by_number=True)]
    with Reader(stub.base_url, "stub-model") as reader:
        out = ask(memory, reader, QUESTION, conversation, k=5)
    assert out.citations == [f"{conversation}:S2:1"] and not out.abstained


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Ana moved to Lisbon.", "no valid citation"),
        ("Ana moved to Lisbon [other-conv:S2:1].", "no valid citation"),
        ("not in memory", "model abstained"),
    ],
)
def test_uncited_or_foreign_citation_becomes_abstention(
    stub: Stub, memory: Memory, conversation: str, text: str, reason: str
) -> None:
    stub.replies = [lambda _body: completion(text)]
    with Reader(stub.base_url, "stub-model") as reader:
        out = ask(memory, reader, QUESTION, conversation, k=5)
    assert out.abstained and out.answer == ABSTENTION and out.reason == reason
    assert out.citations == [] and out.raw == text


def test_retries_429_and_5xx_then_answers(stub: Stub, memory: Memory, conversation: str) -> None:
    stub.replies = [
        lambda _b: (429, {"error": "slow down"}),
        lambda _b: (503, {"error": "busy"}),
        cite_line_with("moved to Lisbon"),
    ]
    with Reader(stub.base_url, "stub-model", backoff_s=0.01) as reader:
        out = ask(memory, reader, QUESTION, conversation, k=5)
    assert len(stub.requests) == 3 and not out.abstained


def test_client_error_is_not_retried(stub: Stub, memory: Memory, conversation: str) -> None:
    stub.replies = [lambda _b: (400, {"error": "bad model"})]
    with (
        Reader(stub.base_url, "stub-model", backoff_s=0.01) as reader,
        pytest.raises(ReaderError, match="HTTP 400"),
    ):
        ask(memory, reader, QUESTION, conversation, k=5)
    assert len(stub.requests) == 1


def test_cli_ask(stub: Stub, settings: Settings, conversation: str) -> None:
    from kgmem.cli import main

    stub.replies = [cite_line_with("moved to Lisbon")]
    password = settings.resolved_password()
    assert password is not None
    env = {
        "KGMEM_NEO4J_URI": settings.neo4j_uri,
        "KGMEM_NEO4J_PASSWORD": password,
        "KGMEM_READER_BASE_URL": stub.base_url,
        "KGMEM_READER_MODEL": "stub-model",
        "KGMEM_READER_MAX_TOKENS": "32",
    }
    done = CliRunner().invoke(
        main, ["ask", QUESTION, "--conversation", conversation, "--json"], env=env
    )
    assert done.exit_code == 0, done.output
    out = json.loads(done.output)
    assert out["citations"] == [f"{conversation}:S2:1"] and stub.requests[0]["max_tokens"] == 32
    unset = {**env, "KGMEM_READER_BASE_URL": ""}
    done = CliRunner().invoke(main, ["ask", QUESTION, "--conversation", conversation], env=unset)
    assert done.exit_code == 1 and "no reader configured" in done.output


def test_bench_locomo_reader_lane_and_corrected_gold(
    stub: Stub, settings: Settings, tmp_path: Path
) -> None:
    """`kgmem bench locomo --reader URL --model NAME --gold corrected` on the small LoCoMo
    fixture: per-question rows, the reader's scores and citations, raw beside corrected."""
    from kgmem.cli import main

    sample = json.loads((DATA / "small_locomo.json").read_text(encoding="utf-8"))[0]
    sample_id = f"it-bench-{uuid.uuid4().hex[:8]}"
    sample["sample_id"] = sample_id
    locomo = tmp_path / "locomo-small.json"
    locomo.write_text(json.dumps([sample]), encoding="utf-8")
    question = sample["qa"][1]  # "What did Caroline apply to?", gold D2:2 and D1:3
    audit = tmp_path / "audit.json"
    audit.write_text(
        json.dumps(
            [
                {
                    "question_id": "locomo_0_qa1",
                    "question": question["question"],
                    "error_type": "WRONG_CITATION",
                    "correct_evidence": ["D1:3"],
                    "correct_answer": "counseling program",
                }
            ]
        ),
        encoding="utf-8",
    )
    stub.replies = [lambda body: completion("a counseling program [1].")]
    password = settings.resolved_password()
    assert password is not None
    env = {"KGMEM_NEO4J_URI": settings.neo4j_uri, "KGMEM_NEO4J_PASSWORD": password}
    args = ["bench", "locomo", str(locomo), "--k", "1,10", "-q", "--json", "-"]
    try:
        done = CliRunner().invoke(
            main,
            [
                *args,
                "--gold",
                "corrected",
                "--audit",
                str(audit),
                "--reader",
                stub.base_url,
                "--model",
                "stub-model",
            ],
            env=env,
        )
        assert done.exit_code == 0, done.output
        report = json.loads(done.stdout)
    finally:
        with Memory.from_settings(settings) as memory:
            memory.forget(sample_id)
    assert report["gold"]["evidence_corrected"] == 1 and report["gold"]["answers_corrected"] == 1
    [row] = report["rows"]
    rows = {q["id"]: q for q in row["questions"]}
    assert set(rows) == {f"{sample_id}:qa0", f"{sample_id}:qa1"}
    applied = rows[f"{sample_id}:qa1"]
    assert len(applied["gold_ranks"]) == 2 and len(applied["corrected"]["gold_ranks"]) == 1
    assert set(applied["context"]) == {"1", "10"} and applied["context"]["10"]["tokens"] > 0
    assert row["metrics"]["all"]["ci"]["all_at"]["10"][0] <= row["metrics"]["all"]["all_at"]["10"]
    assert "corrected" in row and row["answers"]["extractive"]["all"]["n"] == 2
    assert [c["k"] for c in row["context_cost"]] == [1, 10]
    reader = report["reader"]
    assert reader["model"] == "stub-model" and len(stub.requests) == 2
    assert reader["scores"]["all"]["n"] == 2
    read = {q["id"]: q for q in reader["questions"]}
    # the stub cites the first turn it is shown; its answer matches qa1's gold exactly
    assert read[f"{sample_id}:qa1"]["scores"]["reader"]["em"] == 1.0
    assert reader["corrected"]["all"]["n"] == 2
    assert reader["cited_gold_n"] == 2
