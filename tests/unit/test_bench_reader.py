"""The benchmark's reader lane (kgmem.bench.reading) against a stub OpenAI-compatible endpoint
that the test starts on a loopback port: answers, citations of gold turns, LoCoMo F1/EM."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from kgmem.bench.gold import Corrections
from kgmem.bench.reading import read_answers
from kgmem.models import Hit, QuestionRecord
from kgmem.reader import ABSTENTION, Reader
from kgmem.retrieve.retriever import SearchResult

#: what the stub answers, by a word of the question: (answer text, turn number to cite)
SCRIPT = {"moved": ("Lisbon", 2), "pet": ("a dog named Rex", 1), "sister": ("no idea", 0)}


@pytest.fixture()
def endpoint() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A chat-completions stub: answers by the question's keyword, citing a numbered turn."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body)
            user = body["messages"][1]["content"]
            asked = user.rsplit("Question:", 1)[1]
            text, cite = next((v for k, v in SCRIPT.items() if k in asked), ("", 0))
            content = f"{text} [{cite}]." if cite else ABSTENTION
            data = json.dumps(
                {
                    "choices": [{"message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 5},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def _hit(turn_id: str, text: str) -> Hit:
    return Hit(
        turn_id=turn_id,
        text=text,
        speaker="Ana",
        session=1,
        observed_at=datetime(2024, 3, 2, 18, 5, tzinfo=UTC),
        score=0.5,
    )


def _item(n: int, question: str, answer: str, gold: str, *, answerable: bool = True) -> Any:
    hits = [_hit("c:D1:1", "We got a dog, Rex."), _hit("c:D1:2", "We moved to Lisbon.")]
    record = QuestionRecord(
        id=f"c:qa{n}",
        conversation_id="c",
        question=question,
        answer=answer,
        category=4,
        evidence=(gold,),
    )
    result = SearchResult(
        query=question,
        conversation_id="c",
        k=2,
        engine="linked",
        hits=hits,
        answerable=answerable,
        answerability={} if answerable else {"reason": "nobody named"},
    )
    return record, result


def test_reader_answers_are_scored_and_their_citations_checked(
    endpoint: tuple[str, list[dict[str, Any]]],
) -> None:
    url, seen = endpoint
    items = [
        _item(0, "Where has Ana moved?", "Lisbon", "c:D1:2"),
        _item(1, "What pet does Ana have?", "a dog", "c:D1:2"),  # cites D1:1, gold D1:2
        _item(2, "Who is Ana's sister?", "Mia", "c:D1:1"),  # the model abstains
        _item(3, "What is Bo's job?", "nurse", "c:D1:1", answerable=False),  # no call
    ]
    fixes = Corrections(evidence={"c:qa1": ("c:D1:1",)}, answers={"c:qa1": "a dog named Rex"})
    with Reader(url, "stub-model", attempts=1) as reader:
        report = read_answers(reader, items, corrections=fixes)
    assert len(seen) == 3  # the unanswerable question made no call
    assert all(body["model"] == "stub-model" and body["temperature"] == 0 for body in seen)
    rows = {r["id"]: r for r in report["questions"]}
    assert rows["c:qa0"]["answer"] == "Lisbon [2]."
    assert rows["c:qa0"]["citations"] == ["c:D1:2"]
    assert rows["c:qa0"]["scores"]["reader"] == {"f1": 1.0, "em": 1.0}
    assert rows["c:qa0"]["cited_gold"] is True
    assert rows["c:qa1"]["cited_gold"] is False
    # "a dog named Rex" against "a dog": normalised tokens {dog, named, rex} vs {dog}
    assert rows["c:qa1"]["scores"]["reader"]["f1"] == pytest.approx(2 * (1 / 3) / (1 + 1 / 3))
    assert rows["c:qa1"]["corrected"]["scores"]["reader"] == {"f1": 1.0, "em": 1.0}
    assert rows["c:qa2"]["abstained"] and rows["c:qa2"]["cited_gold"] is None
    assert rows["c:qa3"]["reason"].startswith("not supported by memory")
    assert (report["answered"], report["abstained"]) == (2, 2)
    assert report["cited_gold"] == 0.5 and report["cited_gold_n"] == 2
    assert (report["tokens_in"], report["tokens_out"]) == (300, 15)
    overall = report["scores"]["all"]
    assert overall["n"] == 4
    assert overall["f1"] == pytest.approx((1.0 + 0.5) / 4)
    assert overall["em"] == 0.25
    assert report["corrected"]["all"]["f1"] == pytest.approx((1.0 + 1.0) / 4)
    assert re.fullmatch(r"[\d.]+", str(report["latency_ms"]["p50"]))
