"""Typed entity resolution: types not capitalisation, nicknames, safe deterministic ids."""

from __future__ import annotations

import re

import pytest

from kgmem.ingest.extraction.entities import EntityResolver, is_non_entity, ner_type, slugify

CID = "conv-x"
ID_SHAPE = re.compile(r"^conv-x:e:(person|place|organization|work|date|other):[\w-]+$")


def test_speakers_are_person_entities_from_the_start() -> None:
    r = EntityResolver(CID, ["Caroline", "Melanie"])
    assert [(e.name, e.type, e.id) for e in r.entities()] == [
        ("Caroline", "person", "conv-x:e:person:caroline"),
        ("Melanie", "person", "conv-x:e:person:melanie"),
    ]


def test_nickname_and_case_variants_resolve_to_one_person_with_aliases() -> None:
    r = EntityResolver(CID, ["Caroline", "Melanie"])
    mel = r.resolve("Mel", "person")
    upper = r.resolve("MELANIE", "person")
    assert mel is not None and upper is not None
    assert mel.id == upper.id == "conv-x:e:person:melanie"
    assert upper.name == "Melanie"
    assert set(upper.aliases) == {"Mel", "MELANIE"}
    assert len(r.entities()) == 2


def test_two_different_people_never_merge() -> None:
    r = EntityResolver(CID, ["Melanie", "Melissa"])
    assert r.resolve("Melissa", "person").id != r.resolve("Melanie", "person").id  # type: ignore[union-attr]
    # "Mel" could be either: ambiguous, so it merges with neither.
    mel = r.resolve("Mel", "person")
    assert mel is not None and mel.id not in {e.id for e in r.entities()[:2]}
    assert r.entities()[0].aliases == () and r.entities()[1].aliases == ()
    # A conflicting surname blocks the prefix rule; a two-letter prefix is too weak.
    r2 = EntityResolver(CID, ["Jonathan Smith"])
    assert r2.resolve("Jon Brown", "person").id != r2.resolve("Jonathan Smith", "person").id  # type: ignore[union-attr]
    assert r2.resolve("Jo", "person").id == "conv-x:e:person:jo"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("surface", "type_"),
    [
        ("Sunday", "date"),
        ("Sunday", "other"),
        ("last Sunday", "date"),
        ("weekend", "other"),
        ("I", "person"),
        ("you", "person"),
        ("mom", "person"),
        ("my sister", "other"),
        ("Hey", "person"),
        ("Thanks", "organization"),
        ("yesterday", "date"),
        ("last year", "date"),
        ("three", "other"),
        ("", "place"),
        ("  '' ", "place"),
    ],
)
def test_non_entities_are_rejected(surface: str, type_: str) -> None:
    r = EntityResolver(CID, ["Caroline"])
    assert r.resolve(surface, type_) is None  # type: ignore[arg-type]
    assert len(r.entities()) == 1


def test_absolute_dates_are_date_entities() -> None:
    r = EntityResolver(CID)
    assert r.resolve("8 May, 2023", "date").id == "conv-x:e:date:8-may-2023"  # type: ignore[union-attr]
    assert r.resolve("2022", "date") is not None
    assert not is_non_entity("May 7", "date")


def test_quotes_backslashes_backticks_and_unicode_give_safe_deterministic_ids() -> None:
    names = ['Dre "The Doc" O\'Neil', "Back\\slash Bob", "Tick `Tock`", "José Ñúñez", "Zoë 🎨"]
    first = EntityResolver(CID)
    second = EntityResolver(CID)
    ids = [first.resolve(n, "person").id for n in names]  # type: ignore[union-attr]
    assert ids == [second.resolve(n, "person").id for n in names]  # type: ignore[union-attr]
    assert len(set(ids)) == len(names)
    for entity_id in ids:
        assert ID_SHAPE.match(entity_id), entity_id
        assert not set("\"'`\\ ") & set(entity_id)
    assert ids[0] == "conv-x:e:person:dre-the-doc-o-neil"
    assert ids[3] == "conv-x:e:person:josé-ñúñez"
    assert ids[4] == "conv-x:e:person:zoë"
    assert first.entities()[0].name == 'Dre "The Doc" O\'Neil'


def test_slugify_is_casefolded_and_never_empty() -> None:
    assert slugify("The  LOUVRE") == slugify("the louvre") == "the-louvre"
    assert re.fullmatch(r"h[0-9a-f]{12}", slugify("!!!"))


def test_ner_labels_map_to_types() -> None:
    assert ner_type("PERSON") == "person"
    assert ner_type("GPE") == ner_type("LOC") == ner_type("FAC") == "place"
    assert ner_type("ORG") == "organization"
    assert ner_type("WORK_OF_ART") == "work"
    assert ner_type("DATE") == "date"
    assert ner_type("CARDINAL") is None and ner_type("TIME") is None


def test_a_known_name_wins_over_a_wrong_ner_label() -> None:
    r = EntityResolver(CID, ["Caroline", "Melanie"])
    assert r.resolve("Caroline", "organization").id == "conv-x:e:person:caroline"  # type: ignore[union-attr]
    assert r.resolve("Mel", "place").id == "conv-x:e:person:melanie"  # type: ignore[union-attr]
    assert r.resolve("the Louvre", "place").id == "conv-x:e:place:louvre"  # type: ignore[union-attr]


def test_read_path_rebuilds_and_looks_up_without_creating() -> None:
    r = EntityResolver(CID, ["Caroline", "Melanie"])
    r.resolve("Mel", "person")
    rebuilt = EntityResolver.from_records(CID, r.entities())
    assert rebuilt.lookup("mel").id == "conv-x:e:person:melanie"  # type: ignore[union-attr]
    assert rebuilt.lookup("Melanie", "person").name == "Melanie"  # type: ignore[union-attr]
    assert rebuilt.lookup("Paris") is None
    assert rebuilt.entities() == r.entities()


# Entity precision: one test per failure kind found in a hand audit of conv-26.


@pytest.mark.parametrize(
    "noun",
    [
        "dedication",
        "story",
        "connections",
        "outlets",
        "beauty",
        "friendship",
        "freedom",
        "gratitude",
        "inclusivity",
        "identities",
        "kindness",
    ],
)
def test_abstract_nouns_by_vocabulary_or_suffix_are_not_concepts(noun: str) -> None:
    from kgmem.ingest.extraction.entities import is_abstract_noun, is_concept_noun

    assert is_abstract_noun(noun)
    assert not is_concept_noun(noun)


@pytest.mark.parametrize("noun", ["back", "guts", "heart", "face"])
def test_body_part_idioms_are_not_concepts(noun: str) -> None:
    from kgmem.ingest.extraction.entities import is_concept_noun

    assert not is_concept_noun(noun)


@pytest.mark.parametrize(
    "noun",
    [
        "city",
        "university",
        "community",
        "charity race",
        "scholarship",
        "ship",
        "pottery",
        "mango smoothies",
        "guitar",
        "adoption agencies",
    ],
)
def test_concrete_nouns_with_abstract_looking_endings_stay_concepts(noun: str) -> None:
    from kgmem.ingest.extraction.entities import is_concept_noun

    assert is_concept_noun(noun)


@pytest.mark.parametrize("word", ["loads", "lots", "kinds", "bunch"])
def test_partitive_heads_are_not_concepts(word: str) -> None:
    from kgmem.ingest.extraction.entities import is_concept_noun

    assert not is_concept_noun(word)


@pytest.mark.parametrize("word", ["FYI", "btw", "Anyway"])
def test_discourse_words_alone_are_not_entities(word: str) -> None:
    assert is_non_entity(word, "organization")
    assert is_non_entity(word, "other")


def test_doubled_letter_nickname_resolves_to_the_speaker() -> None:
    r = EntityResolver(CID, ["Caroline", "Melanie"])
    mell = r.resolve("Mell", "person")
    assert mell is not None and mell.id == "conv-x:e:person:melanie"
    matt = r.resolve("Matt", "person")  # nobody it could clip: a person of its own
    assert matt is not None and matt.name == "Matt"


def test_doubled_letter_nickname_never_merges_two_candidates() -> None:
    r = EntityResolver(CID, ["Ann", "Bob"])
    r.resolve("Melanie", "person")
    r.resolve("Melissa", "person")
    mell = r.resolve("Mell", "person")
    assert mell is not None and mell.name == "Mell"
