"""The layered evidence picture without a server: what goes in which layer, why a gold turn
is missing, the node budget, boxes that never overlap, and the same data in both renderers."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import matplotlib
import networkx as nx

from kgmem.audit.build import build_picture, key_label, missed_gold
from kgmem.audit.draw import draw_picture
from kgmem.audit.interactive import to_html, to_visualization_graph
from kgmem.audit.layout import layered_layout
from kgmem.audit.model import MAX_NODES
from kgmem.models import Hit
from kgmem.retrieve.retriever import SearchResult

matplotlib.use("Agg")

CID = "conv-x"


def _hit(n: int, score_cos: float, **trace: object) -> Hit:
    terms = {"cosine": score_cos, "fact": 0.3 if trace.get("fact_id") else 0.0}
    if "current" in trace:
        terms["current"] = 0.1
    if "via_entities" in trace:
        terms["entity"] = 0.05
    return Hit(
        turn_id=f"{CID}:D1:{n}",
        text=f"turn {n} says something long enough to be wrapped over two lines " * 2,
        speaker="Ana" if n % 2 else "Ben",
        session=1,
        observed_at=datetime(2024, 3, n % 28 + 1, tzinfo=UTC),
        score=round(sum(terms.values()), 6),
        terms=terms,
        trace={"generators": ["dense_turns"], **trace},
    )


def _subgraph(hits: list[Hit], extra_turns: list[str]) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    for hit in hits:
        g.add_node(hit.turn_id, label="Turn", text=hit.text, speaker=hit.speaker)
    for turn in extra_turns:
        g.add_node(
            turn,
            label="Turn",
            text="the gold turn",
            speaker="Ana",
            observed_at="2024-01-02T00:00:00+00:00",
        )
    for i, hit in enumerate(hits):
        fact = f"{CID}:f{i}"
        g.add_node(fact, label="Fact", relation="live_in", text=f"Ana lives in city {i}")
        g.add_edge(fact, hit.turn_id, key="CITES", type="CITES")
        g.add_node(f"{CID}:e:city{i}", label="Entity", name=f"City {i}", type="place")
        g.add_edge(fact, f"{CID}:e:city{i}", key="ABOUT", type="ABOUT")
        g.add_node(f"{CID}:e:ana", label="Entity", name="Ana", type="person")
        g.add_edge(fact, f"{CID}:e:ana", key="ABOUT", type="ABOUT")
        g.add_edge(hit.turn_id, f"{CID}:e:ana", key="MENTIONS", type="MENTIONS")
        other = f"{CID}:f{i}:other"  # a citing fact that did not bring the hit
        g.add_node(other, label="Fact", relation="say", text="something else")
        g.add_edge(other, hit.turn_id, key="CITES", type="CITES")
    g.add_node(f"{CID}:f0:old", label="Fact", relation="live_in", text="Ana lived in Berlin")
    g.add_edge(f"{CID}:f0", f"{CID}:f0:old", key="SUPERSEDES", type="SUPERSEDES")
    return g


def _result(n: int = 14) -> SearchResult:
    hits = [
        _hit(
            i,
            1.0 - i * 0.05,
            fact_id=f"{CID}:f{i - 1}",
            **({"via_entities": [f"{CID}:e:ana"]} if i == 2 else {}),
            **(
                {"current": {"mode": "current", "winner": f"{CID}:f0", "key": "k"}}
                if i == 1
                else {}
            ),
        )
        for i in range(1, n + 1)
    ]
    # the hit at rank 12 has no fact: its fact term is where it falls behind #10
    hits[11] = hits[11].model_copy(update={"terms": {"cosine": 0.55}, "score": 0.55, "trace": {}})
    hits.sort(key=lambda h: -h.score)
    return SearchResult(
        query="Where does Ana live now?",
        conversation_id=CID,
        k=len(hits),
        engine="linked",
        hits=hits,
        plan={
            "operators": ["semantic", "current_value"],
            "state": "current",
            "entities": [{"surface": "Ana"}],
            "cues": ["state:current:now"],
        },
        candidates=len(hits),
        current=[
            {
                "key": f"{CID}:e:person:ana|live_in",
                "mode": "current",
                "winner": f"{CID}:f0",
                "text": "Ana lives in city 0",
                "reason": "latest value",
                "superseded": [f"{CID}:f0:old"],
                "turns": [f"{CID}:D1:1"],
            }
        ],
    )


def test_layers_hold_question_hits_facts_links_and_decision() -> None:
    result = _result()
    gold = [f"{CID}:D1:1", f"{CID}:D1:12", f"{CID}:D9:9"]
    top_ids = [h.turn_id for h in result.hits[:10]]
    picture = build_picture(
        result, _subgraph(result.hits[:10], [f"{CID}:D9:9", f"{CID}:D1:12"]), k=10, gold=gold
    )
    assert [n.id for n in picture.layer("question")] == ["question"]
    hits = picture.layer("hits")
    assert [n.id for n in hits[:10]] == top_ids  # rank order, top to bottom
    assert hits[0].kind == "gold_hit" and hits[0].title.startswith("GOLD #1 D1:1 · Ana")
    assert [n.kind for n in hits[10:]] == ["missed", "missed"]
    facts = {n.id for n in picture.layer("facts")}
    assert f"{CID}:f0" in facts and f"{CID}:f0:other" not in facts  # only what brought a hit
    links = {n.id: n.kind for n in picture.layer("links")}
    assert links[f"{CID}:e:ana"] == "entity" and links[f"{CID}:f0:old"] == "superseded"
    (decision,) = picture.layer("decision")
    assert decision.title == "current value: ana · live_in"
    assert any(e.type == "CHOSE" and e.target == f"{CID}:f0" for e in picture.edges)
    cites = {(e.source, e.target): e.caption for e in picture.edges if e.type == "CITES"}
    assert cites[(f"{CID}:f0", f"{CID}:D1:1")] == "fact +0.30, current +0.10"
    assert not any(e.type == "MENTIONS" for e in picture.edges)  # only with expand
    assert len(picture.nodes) <= MAX_NODES
    assert picture.omitted > 0


def test_missed_gold_says_rank_and_the_short_term_or_not_in_pool() -> None:
    result = _result()
    ranked = result.hits
    rank12 = next(i for i, h in enumerate(ranked, 1) if h.turn_id == f"{CID}:D1:12")
    ranked_miss, absent = missed_gold(
        ranked, 10, [f"{CID}:D1:12", f"{CID}:D9:9", ranked[0].turn_id]
    )
    assert ranked_miss.rank == rank12 and ranked_miss.short_term == "fact"
    assert ranked_miss.deficit == 0.3
    assert ranked_miss.reason.startswith(f"ranked {rank12} of 14, ")
    assert "short in fact: +0.00 vs +0.30" in ranked_miss.reason
    assert absent.rank is None and absent.reason.startswith("not in the pool")
    (cut,) = missed_gold(ranked[:10], 10, [f"{CID}:D9:9"], 40)
    assert cut.rank is None and "not among the 10 hits returned" in cut.reason


def test_expand_adds_every_citing_fact_and_mention() -> None:
    result = _result()
    sub = _subgraph(result.hits[:10], [])
    small = build_picture(result, sub, k=10)
    big = build_picture(result, sub, k=10, expand=True, max_nodes=None)
    assert len(big.nodes) > len(small.nodes) > 10
    assert f"{CID}:f3:other" in {n.id for n in big.nodes}
    assert any(e.type == "MENTIONS" for e in big.edges)
    assert big.omitted == 0


def test_boxes_never_overlap_and_stay_in_their_column() -> None:
    result = _result()
    sub = _subgraph(result.hits[:10], [])
    for picture in (
        build_picture(result, sub, k=10),
        build_picture(result, sub, k=10, expand=True, max_nodes=None),
    ):
        layout = layered_layout(picture)
        boxes = list(layout.boxes.items())
        for i, (a_id, a) in enumerate(boxes):
            assert a.y - a.height / 2 >= 0 and a.y + a.height / 2 <= layout.height, a_id
            for b_id, b in boxes[i + 1 :]:
                apart_x = abs(a.x - b.x) >= (a.width + b.width) / 2
                apart_y = abs(a.y - b.y) >= (a.height + b.height) / 2
                assert apart_x or apart_y, (a_id, b_id)
        assert len({round(b.x, 6) for b in layout.boxes.values()}) == len(layout.columns)


def test_both_renderers_draw_the_same_nodes_and_edges() -> None:
    result = _result()
    picture = build_picture(result, _subgraph(result.hits[:10], []), k=10)
    fig = draw_picture(picture)
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "GOLD" not in texts and "#1 D1:1 · Ana" in texts and "current value:" in texts
    graph = to_visualization_graph(picture)
    assert {str(n.id) for n in graph.nodes} == {n.id for n in picture.nodes}
    assert len(graph.relationships) == len(picture.edges)
    html = to_html(picture)
    assert 'id="neo4j-viz-data"' in html and "Where does Ana live now?" in html
    # self-contained: no script or stylesheet fetched from anywhere at view time
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=", html)


def test_key_label() -> None:
    assert key_label("conv-26:e:person:caroline|hobbies|g") == "caroline · hobbies · g"
    assert key_label("plain") == "plain"


def test_the_interactive_view_labels_facts_and_the_question_by_their_text() -> None:
    result = _result()
    picture = build_picture(result, _subgraph(result.hits[:10], []), k=10)
    graph = to_visualization_graph(picture)
    captions = {str(n.id): str(n.caption) for n in graph.nodes}
    assert captions["question"].replace("\n", " ") == "Where does Ana live now?"
    facts = [n for n in picture.nodes if n.kind in ("fact", "superseded")]
    assert facts
    for fact in facts:
        caption = captions[fact.id]
        assert caption.replace("\n", " ").removeprefix("older value: ")[:12] in " ".join(
            str(fact.properties.get("text")).split()
        )
        assert all(len(line) <= 30 for line in caption.split("\n"))
        assert caption.count("\n") <= 2
