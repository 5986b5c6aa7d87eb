"""Numbered fact lists: template parsing, file loading, entity/fact rows (no server)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kgmem.errors import MalformedInput
from kgmem.ingest.numbered import (
    RELATIONS,
    entity_id,
    entity_key,
    fact_rows,
    load_numbered_file,
    parse_numbered_facts,
)

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


def test_each_line_becomes_a_typed_triple() -> None:
    parsed = parse_numbered_facts(LIST)
    assert parsed.unparsed == []
    triples = [(f.serial, f.subject, f.relation, f.object) for f in parsed.facts]
    assert triples == [
        (0, "Thomas Kyd", "place_of_birth", "London"),
        (1, "Tucson", "head_of_government", "Jonathan Rothschild"),
        (2, "Pedro Pierluisi", "work_location", "Washington, D.C."),
        (3, "Galileo Galilei", "educated_at", "University of Pisa"),
        (4, "Bengaluru", "continent", "Asia"),
        (5, "Walter Chrysler", "child", "Charles Frederick, Duke of Holstein-Gottorp"),
        (6, "Prime Minister of Sweden", "officeholder", "Stefan Löfven"),
        (7, "Thomas Kyd", "place_of_birth", "Leeds"),
    ]
    assert parsed.facts[2].text == "Pedro Pierluisi worked in the city of Washington, D.C.."


def test_specific_template_wins_over_a_shorter_one() -> None:
    parsed = parse_numbered_facts(
        "0. Paris is located in the continent of Europe.\n1. Paris is located in Île-de-France."
    )
    assert [f.relation for f in parsed.facts] == ["continent", "located_in"]


def test_generic_frame_and_unparsed_lines_are_reported() -> None:
    parsed = parse_numbered_facts("0. Ada is the mother of Byron.\n1. nonsense here\n\n2. x")
    assert [(f.subject, f.relation, f.object, f.confidence) for f in parsed.facts] == [
        ("Ada", "mother", "Byron", 0.8)
    ]
    assert parsed.unparsed == [(2, "1. nonsense here"), (4, "2. x")]
    with pytest.raises(MalformedInput, match="line 2"):
        parsed.raise_if_unparsed()


def test_duplicate_serial_is_malformed() -> None:
    with pytest.raises(MalformedInput, match="serial 0"):
        parse_numbered_facts("0. A is married to B.\n0. A is married to C.")


def test_every_relation_template_round_trips() -> None:
    for rel in RELATIONS:
        for template in rel.templates:
            line = "0. " + template.format(s="Alpha Beta", o="Gamma Delta") + "."
            (fact,) = parse_numbered_facts(line).facts
            assert (fact.subject, fact.relation, fact.object) == (
                "Alpha Beta",
                rel.id,
                "Gamma Delta",
            ), template


def test_entity_key_normalises_case_punctuation_and_leading_the() -> None:
    assert entity_key("The Beatles") == entity_key("the beatles") == "beatles"
    assert entity_key("Washington, D.C.") == entity_key("washington d.c") == "washington d c"
    assert entity_key("Rand al'Thor") == "rand al'thor"
    assert entity_key("'Sidereus Nuncius'") == "sidereus nuncius"
    assert entity_id("t", "The Witcher") == "t:entity:witcher"


def test_rows_link_supersession_keys_and_vote_kinds() -> None:
    entities, facts = fact_rows("t", parse_numbered_facts(LIST))
    kyd = [f for f in facts if f["subject"] == "t:entity:thomas kyd"]
    assert [f["serial"] for f in kyd] == [0, 7]
    assert {f["key"] for f in kyd} == {"t:entity:thomas kyd|place_of_birth"}
    assert all(f["source"] == "manual" and f["id"] == f"t:fact:{f['serial']}" for f in facts)
    kinds = {e["name"]: (e["kind"], e["type"]) for e in entities}
    assert kinds["London"] == ("city", "place")
    assert kinds["Thomas Kyd"] == ("person", "person")
    assert len(entities) == len({e["id"] for e in entities})


def test_load_plain_text_and_mab_json(tmp_path: Path) -> None:
    text = tmp_path / "facts.txt"
    text.write_text(LIST, encoding="utf-8")
    assert load_numbered_file(text) == [("facts", LIST)]
    js = tmp_path / "mab.json"
    js.write_text(
        json.dumps(
            {
                "data": [
                    {"context": LIST, "metadata": {"source": "fc_sh"}},
                    {"context": "0. A is married to B."},
                ]
            }
        ),
        encoding="utf-8",
    )
    assert [name for name, _ in load_numbered_file(js)] == ["fc_sh", "mab-1"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"data": [{"questions": []}]}', encoding="utf-8")
    with pytest.raises(MalformedInput, match="context"):
        load_numbered_file(bad)


@pytest.mark.skipif(not MAB_6K.is_file(), reason="shared MAB data not present")
def test_the_6k_file_parses_completely() -> None:
    rows = load_numbered_file(MAB_6K)
    assert [name for name, _ in rows] == ["factconsolidation_mh_6k", "factconsolidation_sh_6k"]
    for name, context in rows:
        parsed = parse_numbered_facts(context, source=name)
        assert parsed.unparsed == []
        assert [f.serial for f in parsed.facts] == list(range(455))
