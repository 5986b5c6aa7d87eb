"""Numbered fact lists as conversations, and the statement extractor of the write path
(kgmem.ingest.loaders.numbered, kgmem.ingest.extraction.relations, kgmem.lexicon; no server)."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import pytest

from kgmem.errors import MalformedInput
from kgmem.ingest.extraction.relations import RelationExtractor, match_statement
from kgmem.ingest.extraction.supersession import supersession_chain
from kgmem.ingest.loaders.numbered import SPEAKER, START, load_numbered, parse_numbered
from kgmem.lexicon import lexicon, parse_lexicon

# MemoryAgentBench 6K: KGMEM_MAB_FILE, else ../shared/data/... beside the checkout
MAB_6K = Path(
    os.environ.get("KGMEM_MAB_FILE")
    or Path(__file__).resolve().parents[3] / "shared" / "data" / "mab" / "factconsolidation_6k.json"
)

LIST = """Here is a list of facts:
0. Thomas Kyd was born in the city of London.
1. The name of the current head of the Tucson government is Jonathan Rothschild.
2. Pedro Pierluisi worked in the city of Washington, D.C..
3. The univeristy where Galileo Galilei was educated is University of Pisa.
4. Bengaluru is located in the continent of Asia.
5. Walter Chrysler's child is Charles Frederick, Duke of Holstein-Gottorp.
6. The Prime Minister of Sweden is Stefan Löfven.
7. Thomas Kyd was born in the city of Leeds.
"""


def test_each_line_is_a_turn_in_number_order() -> None:
    conv = parse_numbered(LIST, "t")
    assert [t.id for t in conv.turns] == [f"t:L{n}" for n in range(8)]
    assert {t.speaker for t in conv.turns} == {SPEAKER} and conv.speakers == (SPEAKER,)
    assert [t.observed_at for t in conv.turns] == [START + timedelta(seconds=n) for n in range(8)]
    assert conv.turns[2].text == "Pedro Pierluisi worked in the city of Washington, D.C.."
    shuffled = parse_numbered("2. B is married to C.\n0. A is married to B.", "t")
    assert [t.dia_id for t in shuffled.turns] == ["L0", "L2"]
    assert [t.index for t in shuffled.turns] == [0, 1]


def test_duplicate_number_and_empty_list_are_malformed() -> None:
    with pytest.raises(MalformedInput, match="number 0"):
        parse_numbered("0. A is married to B.\n0. A is married to C.", "t")
    with pytest.raises(MalformedInput, match="no numbered lines"):
        parse_numbered("Here is a list of facts:", "t")
    with pytest.raises(MalformedInput, match="':'"):
        parse_numbered("0. A is married to B.", "a:b")


def test_each_line_states_a_typed_relation() -> None:
    conv = parse_numbered(LIST, "t")
    out = RelationExtractor().extract("t", conv.turns, conv.speakers)
    names = {e.id: e.name for e in out.entities}
    triples = [(names[f.subject], f.relation, names[f.object]) for f in out.facts]
    assert triples == [
        ("Thomas Kyd", "place_of_birth", "London"),
        ("Tucson", "head_of_government", "Jonathan Rothschild"),
        ("Pedro Pierluisi", "work_location", "Washington, D.C"),
        ("Galileo Galilei", "educated_at", "University of Pisa"),  # "univeristy": a typo
        ("Bengaluru", "continent", "Asia"),
        ("Walter Chrysler", "child", "Charles Frederick, Duke of Holstein-Gottorp"),
        ("Prime Minister of Sweden", "officeholder", "Stefan Löfven"),
        ("Thomas Kyd", "place_of_birth", "Leeds"),
    ]
    assert all(f.cites == (t.id,) for f, t in zip(out.facts, conv.turns, strict=True))
    assert out.facts[0].subject == "t:e:person:thomas-kyd"
    assert out.facts[0].object == "t:e:place:london"
    assert {(t, e) for t, e in out.mentions} >= {("t:L0", "t:e:person:thomas-kyd")}


def test_a_later_value_supersedes_through_supersession_py() -> None:
    conv = parse_numbered(LIST, "t")
    facts = RelationExtractor().extract("t", conv.turns, conv.speakers).facts
    kyd = [f for f in facts if f.subject == "t:e:person:thomas-kyd"]
    assert {f.key for f in kyd} == {"t:e:person:thomas-kyd|place_of_birth"}
    assert supersession_chain(facts) == [(kyd[1].id, kyd[0].id)]
    child = next(f for f in facts if f.relation == "child")
    assert child.key is None  # multi-valued: a second child does not replace the first


def test_specific_form_wins_and_typos_are_tolerated() -> None:
    st = match_statement("Paris is located in the continent of Europe.")
    assert st is not None and st.relation.id == "continent"
    st = match_statement("Paris is located in Île-de-France.")
    assert st is not None and st.relation.id == "located_in"
    st = match_statement("The origianl broadcaster of Friends is NBC.")
    assert st is not None and (st.relation.id, st.subject) == ("original_broadcaster", "Friends")
    assert match_statement("I had a great weekend hiking with Jon.") is None


def test_every_statement_form_round_trips() -> None:
    for rel in lexicon().relations:
        for template in rel.statements:
            st = match_statement(template.format(s="Alpha Beta", o="Gamma Delta") + ".")
            assert st is not None, template
            assert (st.subject, st.object) == ("Alpha Beta", "Gamma Delta"), template
            assert st.relation.id == rel.id or st.relation.object_kind == rel.object_kind, template


def test_lexicon_validation() -> None:
    doc = json.loads(
        (Path(__file__).resolve().parents[2] / "kgmem/data/relations.json").read_text()
    )
    doc["cues"].append({"pattern": "foo", "relations": {"nope": 0}})
    with pytest.raises(MalformedInput, match="unknown"):
        parse_lexicon(doc)
    with pytest.raises(MalformedInput):
        parse_lexicon({"relations": [{"id": "x"}]})


def test_load_plain_text_and_mab_json(tmp_path: Path) -> None:
    text = tmp_path / "facts.txt"
    text.write_text(LIST, encoding="utf-8")
    assert [c.conversation_id for c in load_numbered(text)] == ["facts"]
    assert [c.conversation_id for c in load_numbered(text, conversation_id="mine")] == ["mine"]
    js = tmp_path / "mab.json"
    rows = [
        {"context": LIST, "metadata": {"source": "fc_sh"}},
        {"context": "0. A is married to B."},
    ]
    js.write_text(json.dumps({"data": rows}), encoding="utf-8")
    assert [c.conversation_id for c in load_numbered(js)] == ["fc_sh", "mab-1"]
    assert [c.conversation_id for c in load_numbered(js, conversation_id="x")] == [
        "x-fc_sh",
        "x-mab-1",
    ]
    bad = tmp_path / "bad.json"
    bad.write_text('{"data": [{"questions": []}]}', encoding="utf-8")
    with pytest.raises(MalformedInput, match="context"):
        load_numbered(bad)


@pytest.mark.skipif(not MAB_6K.is_file(), reason="shared MAB data not present")
def test_every_line_of_the_6k_file_states_a_relation() -> None:
    convs = load_numbered(MAB_6K)
    assert [c.conversation_id for c in convs] == [
        "factconsolidation_mh_6k",
        "factconsolidation_sh_6k",
    ]
    for conv in convs:
        out = RelationExtractor().extract(conv.conversation_id, conv.turns, conv.speakers)
        assert len(conv.turns) == 455
        assert sorted(f.cites[0] for f in out.facts) == sorted(t.id for t in conv.turns)
