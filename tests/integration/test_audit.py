"""Evidence audit against a real Neo4j: Browser statements, the `explain --cypher` script,
the networkx evidence subgraph and its drawings, and the EXACT / SUPPORTED grades."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import neo4j

from kgmem.api import Memory
from kgmem.audit import (
    MAX_NODES,
    POOL_K,
    cypher_string,
    draw_evidence,
    evidence_cypher,
    evidence_picture,
    evidence_subgraph,
    grade,
    plot_terms,
)
from kgmem.config import Settings
from kgmem.models import QuestionRecord
from kgmem.store.catalogue import catalogue

matplotlib.use("Agg")


def _browser_params(conversation: str) -> dict[str, dict[str, object]]:
    return {
        "browser/conversation_timeline": {
            "conversation_id": conversation,
            "from_index": 0,
            "limit": 40,
        },
        "browser/turn_facts": {"turn_id": f"{conversation}:S1:3"},
        "browser/entity_history": {"conversation_id": conversation, "name": "Ana"},
        "browser/evidence_subgraph": {"turn_ids": [f"{conversation}:S1:3", f"{conversation}:S2:1"]},
    }


def test_every_browser_statement_explains_and_runs_with_its_params(
    driver: neo4j.Driver, conversation: str
) -> None:
    params = _browser_params(conversation)
    # the sample chat holds no memory request: that statement runs in test_memory_requests.py
    assert set(catalogue().names("browser")) == set(params) | {"browser/memory_requests"}
    with driver.session() as session:
        for name, values in params.items():
            text = catalogue()[name]
            declared = set(re.findall(r"^// :param (\w+) =>", text, flags=re.M))
            assert declared == set(values), name  # the comment header documents every $param
            assert set(re.findall(r"\$(\w+)", text)) == declared, name
            session.run(f"EXPLAIN {text}", values).consume()
            rows = session.run(text, values).data()
            assert rows, f"{name} returned nothing for the sample conversation"


def test_timeline_is_in_utterance_order(driver: neo4j.Driver, conversation: str) -> None:
    with driver.session() as session:
        rows = session.run(
            catalogue()["browser/conversation_timeline"],
            _browser_params(conversation)["browser/conversation_timeline"],
        ).data()
    ids = [row["t"]["id"] for row in rows]
    assert ids[:6] == [f"{conversation}:S1:{n}" for n in range(1, 6)] + [f"{conversation}:S2:1"]


def test_explain_cypher_script_is_paste_ready(
    driver: neo4j.Driver, memory: Memory, conversation: str
) -> None:
    result = memory.search("Where did Ana move to?", conversation, k=4)
    script = evidence_cypher(result)
    (param_line,) = [line for line in script.splitlines() if line.startswith(":param")]
    literal = re.fullmatch(r":param turn_ids => (\[.*\]);", param_line)
    assert literal is not None
    statement = script.split(param_line, 1)[1].strip().rstrip(";")
    with driver.session() as session:
        (ids,) = session.run(f"RETURN {literal.group(1)} AS ids").single() or ()
        assert ids == [hit.turn_id for hit in result.hits]
        rows = session.run(statement, {"turn_ids": ids}).data()
    assert {row["t"]["id"] for row in rows} == set(ids)
    assert "// :param" not in script  # the file's example lines are replaced by the real one


def test_cypher_string_round_trips_awkward_text(driver: neo4j.Driver) -> None:
    awkward = "it's a \\ back'slash\nnew line"
    with driver.session() as session:
        record = session.run(
            f"RETURN {cypher_string(awkward)} = $value AS same", {"value": awkward}
        ).single()
    assert record is not None and record["same"] is True


def test_evidence_subgraph_holds_turns_facts_entities(memory: Memory, conversation: str) -> None:
    asked = [f"{conversation}:S1:3", f"{conversation}:S2:1"]
    graph = evidence_subgraph(memory, conversation, asked)
    for turn_id in asked:
        assert graph.nodes[turn_id]["hit"] is True and graph.nodes[turn_id]["label"] == "Turn"
    types = {t for *_, t in graph.edges(data="type")}
    assert {"NEXT", "CITES"} <= types
    assert graph.has_edge(f"{conversation}:S1:2", f"{conversation}:S1:3", key="NEXT")
    assert graph.has_edge(f"{conversation}:S1:5", f"{conversation}:S2:1", key="NEXT")
    facts = [n for n, label in graph.nodes(data="label") if label == "Fact"]
    citing = [f for f in facts if any(v in asked for v in graph.successors(f))]
    assert citing  # the extractor's facts about Ana's moves cite the asked turns
    for fact in set(facts) - set(citing):  # others only enter as SUPERSEDES neighbours
        assert any(t == "SUPERSEDES" for *_, t in graph.edges(fact, data="type")) or any(
            t == "SUPERSEDES" for *_, t in graph.in_edges(fact, data="type")
        )
    assert all(n.startswith(f"{conversation}:") for n in graph.nodes)
    assert not any("embedding" in attrs for _, attrs in graph.nodes(data=True))


def test_drawings_produce_artists(memory: Memory, conversation: str) -> None:
    result = memory.search("Where did Ana move to?", conversation, k=4)
    graph = evidence_subgraph(memory, conversation, [h.turn_id for h in result.hits])
    ax = draw_evidence(graph, gold=[f"{conversation}:S2:1", f"{conversation}:S9:9"])
    assert ax.collections and "gold not in graph" in ax.get_title()
    bars = plot_terms(result)
    assert len(bars.patches) >= len(result.hits)


def test_grades_exact_and_supported(memory: Memory, conversation: str) -> None:
    moved = QuestionRecord(
        id=f"{conversation}:qa0",
        conversation_id=conversation,
        question="Where did Ana move to?",
        answer="Lisbon",
        category=4,
        evidence=(f"{conversation}:S2:1",),
    )
    result = memory.search(moved.question, conversation, k=3)
    graded = grade(memory, moved, result, k=3)
    assert graded["exact"] and graded["supported"]
    assert graded["gold_ranks"][f"{conversation}:S2:1"] is not None
    # gold is a turn that is not retrieved, but a retrieved turn contains the answer string
    elsewhere = moved.model_copy(update={"evidence": (f"{conversation}:S9:9",), "answer": "Lisbon"})
    graded = grade(memory, elsewhere, result, k=3)
    assert not graded["exact"] and graded["supported"]


def test_evidence_picture_from_the_store_explains_hits_and_missed_gold(
    memory: Memory, conversation: str
) -> None:
    """The picture of a current-value question on the sample chat: the hits in the order
    search returns them, the facts behind their terms, the move's SUPERSEDES link, the
    current-value decision, and a gold turn outside the top k with its rank."""
    question = "Where does Ana live now?"
    plain = memory.search(question, conversation, k=3)
    whole = memory.search(question, conversation, k=POOL_K)
    outside = whole.hits[4].turn_id  # a turn the top 3 do not hold
    picture, shown = evidence_picture(
        memory, question, conversation, k=3, gold=[outside.split(":", 1)[1]]
    )
    assert [h.turn_id for h in shown.hits] == [h.turn_id for h in plain.hits]
    assert [n.id for n in picture.layer("hits")] == [*(h.turn_id for h in plain.hits), outside]
    (miss,) = picture.missed
    assert miss.turn_id == outside and miss.rank == 5 and miss.candidates == whole.candidates
    assert miss.short_term is not None and miss.reason.startswith(f"ranked 5 of {whole.candidates}")
    facts = {n.id for n in picture.layer("facts")}
    for hit in plain.hits:
        if hit.trace.get("fact_id"):
            assert hit.trace["fact_id"] in facts
    assert plain.current, "the sample chat's move is a current-value decision"
    decisions = picture.layer("decision")
    assert {d.properties["winner"] for d in decisions} == {d["winner"] for d in plain.current}
    assert any(e.type == "SUPERSEDES" for e in picture.edges)  # Berlin -> Lisbon
    assert len(picture.nodes) <= MAX_NODES
    assert picture.cypher == memory.evidence_cypher(plain)


def test_explain_html_and_png_write_the_same_picture(
    settings: Settings, conversation: str, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from kgmem.cli import main

    html, png = tmp_path / "why.html", tmp_path / "why.png"
    password = settings.resolved_password()
    assert password is not None
    env = {"KGMEM_NEO4J_URI": settings.neo4j_uri, "KGMEM_NEO4J_PASSWORD": password}
    args = ["explain", "Where does Ana live now?", "--conversation", conversation, "--k", "3"]
    done = CliRunner().invoke(
        main, [*args, "--gold", "S1:4", "--html", str(html), "--png", str(png)], env=env
    )
    assert done.exit_code == 0, done.output
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!") and 'id="neo4j-viz-data"' in page
    assert "Where does Ana live now?" in page and f"{conversation}:S1:4" in page
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=", page)  # nothing fetched
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"gold {conversation}:S1:4: " in done.output
    alone = CliRunner().invoke(main, [*args, "--gold", "S1:4"], env=env)
    assert alone.exit_code == 2 and "give --html or --png" in alone.output
