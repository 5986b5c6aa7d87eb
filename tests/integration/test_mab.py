"""Numbered fact lists are ordinary conversations on a real Neo4j: written by the normal
pipeline (turns, embeddings, statement facts citing their turns, SUPERSEDES), found by search,
current, history and the Browser statements, answered by the chain operator; and the
FactConsolidation benchmark through `Memory` (6K file: single-hop >= 98, multi-hop >= 90)."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgmem.api import Memory
from kgmem.bench.mab import run_mab_bench
from kgmem.cli.search import search as search_cli
from kgmem.config import Settings
from kgmem.ingest.loaders.numbered import load_numbered, parse_numbered

# MemoryAgentBench 6K: KGMEM_MAB_FILE, else ../shared/data/... beside the checkout
MAB_6K = Path(
    os.environ.get("KGMEM_MAB_FILE")
    or Path(__file__).resolve().parents[3] / "shared" / "data" / "mab" / "factconsolidation_6k.json"
)

LIST = """Here is a list of facts:
0. Thomas Kyd was born in the city of London.
1. The capital of England is Winchester.
2. Thomas Kyd is a citizen of England.
3. Thomas Kyd is married to Anne Kyd.
4. Thomas Kyd was born in the city of Leeds.
5. Anne Kyd is a citizen of Scotland.
6. The capital of England is London.
7. The capital of Scotland is Edinburgh.
"""


@pytest.fixture(scope="module")
def facts(memory: Memory) -> Iterator[str]:
    cid = f"it-facts-{uuid.uuid4().hex[:8]}"
    memory.add_conversation(parse_numbered(LIST, cid), facts="extracted")
    yield cid
    memory.forget(cid)


def test_a_fact_list_is_a_conversation_with_cited_facts(memory: Memory, facts: str) -> None:
    counts = memory.counts(facts)
    assert counts["turns"] == 8 and counts["next"] == 7
    assert counts["cites"] >= 8  # every line's statement fact cites its turn
    again = memory.add_conversation(parse_numbered(LIST, facts), facts="extracted")
    assert again.turns_written == 0 and again.facts_written == 0  # idempotent


def test_current_and_history_follow_the_numbering(memory: Memory, facts: str) -> None:
    history = memory.history(facts, "Thomas Kyd", "place_of_birth")
    assert [h["cites"] for h in history] == [[f"{facts}:L0"], [f"{facts}:L4"]]
    assert history[0]["superseded_by"] == history[1]["id"]
    current = memory.current(facts, "thomas kyd", "place_of_birth")
    assert current is not None and "Leeds" in current["text"]
    capital = memory.current(facts, "England", "capital")
    assert capital is not None and capital["cites"] == [f"{facts}:L6"]


def test_search_finds_the_lines(memory: Memory, facts: str) -> None:
    result = memory.search("Who is Thomas Kyd married to?", facts, k=3)
    assert result.hits[0].turn_id == f"{facts}:L3"
    assert result.hits[0].speaker == "source"


def test_chain_over_current_values_with_traced_hops(memory: Memory, facts: str) -> None:
    question = "What is the capital of the country of citizenship of the spouse of Thomas Kyd?"
    result = memory.chain(question, facts)
    assert result.answer == "Edinburgh"
    assert [h.relation for h in result.hops] == ["spouse", "citizenship", "capital"]
    assert result.turn_ids == [f"{facts}:L3", f"{facts}:L5", f"{facts}:L7"]
    assert all(h.latest for h in result.hops) and result.relaxations == []
    own = memory.chain("What is the capital of the country of citizenship of Thomas Kyd?", facts)
    assert (own.answer, own.turn_ids[-1]) == ("London", f"{facts}:L6")  # not Winchester (L1)
    assert memory.chain("Who is the spouse of Nobody Known?", facts).answer is None


def test_search_runs_the_chain_operator_and_ranks_its_turns_first(
    memory: Memory, facts: str
) -> None:
    question = "What is the capital of the country of citizenship of the spouse of Thomas Kyd?"
    result = memory.search(question, facts, k=5)
    assert "chain" in result.plan["operators"]
    assert result.plan["chain"] == ["spouse", "citizenship", "capital"]
    assert result.chain is not None and result.chain["answer"] == "Edinburgh"
    path = [f"{facts}:L3", f"{facts}:L5", f"{facts}:L7"]
    assert result.chain["turn_ids"] == path
    assert [h["relation"] for h in result.chain["hops"]] == ["spouse", "citizenship", "capital"]
    hops = json.loads(result.model_dump_json())["chain"]["hops"]  # JSON, as an agent sees it
    assert [h["cites"] for h in hops] == [[t] for t in path]
    # the answer's turn first, then the rest of the path, above every other line
    assert [h.turn_id for h in result.hits[:3]] == path[::-1]
    first = result.hits[0]
    assert first.trace["chain"]["hop"] == 3 and first.trace["chain"]["subject"] == "Scotland"
    assert first.trace["chain"]["relation"] == "capital"
    assert first.trace["chain"]["fact_id"] == result.chain["hops"][2]["fact_id"]
    assert first.terms["chain"] == pytest.approx(memory.settings.w_chain)  # the literal path


def test_search_explain_shows_the_chain(settings: Settings, facts: str) -> None:
    question = "What is the capital of the country of citizenship of the spouse of Thomas Kyd?"
    args = [question, "--conversation", facts, "--k", "3", "--explain"]
    out = CliRunner().invoke(search_cli, args, obj=settings)
    assert out.exit_code == 0, out.output
    assert "'chain'" in out.output and "chain:spouse > citizenship > capital" in out.output
    assert f"-capital-> Edinburgh [{facts}:L7] = Edinburgh" in out.output


def test_search_without_a_chain_path_is_unchanged(memory: Memory, facts: str) -> None:
    question = "Who is the spouse of Nobody Known?"
    result = memory.search(question, facts, k=5)
    assert "chain" in result.plan["operators"] and result.chain is None
    assert all("chain" not in h.terms for h in result.hits)
    assert all("chain" not in h.trace and "chain" not in h.trace["generators"] for h in result.hits)
    plain = memory.search("When was Thomas Kyd born?", facts, k=5)  # asks a time: no chain
    assert "chain" not in plain.plan["operators"] and plain.chain is None


def test_browser_statement_shows_the_entity_history(memory: Memory, facts: str) -> None:
    rows = memory.store.read("browser/entity_history", conversation_id=facts, name="Thomas Kyd")
    assert len(rows) >= 3


@pytest.mark.slow  # the whole 6K benchmark: 200 questions over ingested fact lists (minutes)
@pytest.mark.skipif(not MAB_6K.is_file(), reason="shared MAB data not present")
def test_benchmark_through_memory_reaches_targets(memory: Memory) -> None:
    prefix = f"it-mab-{uuid.uuid4().hex[:8]}-"
    try:
        seen: list[int] = []
        report = run_mab_bench(memory, MAB_6K, prefix=prefix, progress=seen.append)
        assert report["n_questions"] == len(seen) == 200
        assert report["lanes"]["single-hop"]["accuracy"] >= 98.0
        assert report["lanes"]["multi-hop"]["accuracy"] >= 90.0
        assert report["latency_ms"]["p95"] is not None
        again = run_mab_bench(memory, MAB_6K, prefix=prefix)
        assert all(v["ms"] is None for v in again["ingest"].values())  # nothing re-ingested
        assert again["lanes"] == report["lanes"]
    finally:
        for conv in load_numbered(MAB_6K):
            memory.forget(prefix + conv.conversation_id)
