"""One vocabulary: every attribute, supersession family and value type the code names is in
``kgmem/data/attributes.json`` or `ValueType`, and every value type the data names is a
`ValueType` (so a renamed attribute or type cannot leave a silent hand-written copy behind)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from kgmem.ingest.extraction import attributes, supersession, values
from kgmem.ingest.extraction.attributes import VOCABULARY_FILE, vocabulary
from kgmem.ingest.extraction.values import FORM_TYPES, PATTERNS, VALUE_TRAITS, VALUE_TYPES
from kgmem.retrieve import resolve

ROOT = Path(__file__).resolve().parents[2] / "kgmem"
#: the modules that read attributes, families or value types by name
MODULES = (
    "ingest/extraction/supersession.py",
    "ingest/extraction/attributes.py",
    "ingest/extraction/value_statements.py",
    "ingest/extraction/values.py",
    "retrieve/resolve.py",
    "retrieve/asked.py",
    "retrieve/answerable.py",
    "bench/answers.py",
)
#: names whose value is an attribute id / a value type where the code compares or sets them
ATTRIBUTE_NAMES = {"family", "id", "attribute"}
TYPE_NAMES = {"kind", "value_type", "typed"}

IDS = set(vocabulary().attributes)


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _strings(node: ast.expr) -> list[str]:
    """The string constants of a constant, or of a tuple/set/list of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.Set, ast.List)):
        return [s for e in node.elts for s in _strings(e)]
    return []


def _named_in(names: set[str]) -> list[tuple[str, int, str]]:
    """``(module, line, string)`` for each string compared with or assigned to one of
    ``names`` in `MODULES` (``family == "residence"``, ``a.id in ("owned", …)``,
    ``family = "assignment"``)."""
    found = []
    for module in MODULES:
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            pairs: list[tuple[ast.expr, ast.expr]] = []
            if not isinstance(node, (ast.Compare, ast.Assign)):
                continue
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                pairs = [(a, b) for a in sides for b in sides if a is not b]
            elif isinstance(node, ast.Assign):
                pairs = [(t, node.value) for t in node.targets]
            for target, value in pairs:
                if _name(target) in names:
                    found += [(module, node.lineno, s) for s in _strings(value)]
    return found


def test_every_value_type_of_the_data_is_a_value_type() -> None:
    data = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    named = {t for a in data["attributes"] for t in a["value_types"]}
    assert named <= set(VALUE_TYPES), named - set(VALUE_TYPES)


def test_the_traits_table_names_every_value_type_once() -> None:
    assert sorted(VALUE_TRAITS) == sorted(VALUE_TYPES)
    assert {kind for kind, _ in PATTERNS} == FORM_TYPES <= set(VALUE_TYPES)
    for trait in ("entity", "proper", "whole", "distinctive", "stated", "copula", "self_naming"):
        assert values.types_with(trait), trait


def test_every_value_type_the_code_compares_is_a_value_type() -> None:
    found = _named_in(TYPE_NAMES)
    assert found  # the scan sees the code's comparisons
    bad = [f for f in found if f[2] not in VALUE_TYPES]
    assert not bad, bad


def test_every_attribute_the_code_names_is_in_the_data() -> None:
    found = _named_in(ATTRIBUTE_NAMES)
    assert {s for _, _, s in found} >= {"residence", "assignment", "likes", "owned"}
    bad = [f for f in found if f[2] not in IDS]
    assert not bad, bad
    assert attributes._THING_VALUED <= IDS
    from kgmem.retrieve import answerable

    assert answerable.JOB <= IDS


def _classify_returns() -> set[tuple[str, bool]]:
    """``(family, multi)`` of each family `classify` returns (multi: a value slot is given)."""
    tree = ast.parse(Path(supersession.__file__).read_text(encoding="utf-8"))
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "classify")
    out = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            family, slot = node.value.elts
            if isinstance(family, ast.Constant) and isinstance(family.value, str):
                empty = isinstance(slot, ast.Constant) and slot.value == ""
                out.add((family.value, not empty))
    return out


def test_supersession_families_are_attributes_of_the_same_multiplicity() -> None:
    returned = _classify_returns()
    assert {f for f, _ in returned} >= {"drink", "pets", "likes"}
    by_object = {family for _, family in supersession._BY_OBJECT.values()}
    vocab = vocabulary().attributes
    for family, multi in returned | {(f, False) for f in by_object}:
        assert family in IDS, family
        assert (vocab[family].multiplicity == "multi") == multi, family
        assert (family in supersession.MULTI_VALUED) == multi, family


def test_the_families_are_derived_from_the_data() -> None:
    vocab = vocabulary().attributes
    assert set(supersession.SINGLE_VALUED.values()) <= IDS
    assert all(vocab[f].multiplicity == "single" for f in supersession.SINGLE_VALUED.values())
    assert {a for a in IDS if vocab[a].multiplicity == "multi"} == supersession.MULTI_VALUED
    assert {"child", "language"} <= supersession.MULTI_VALUED
    assert set(supersession.FAMILY_WORDS) == IDS
    for family, words in supersession.FAMILY_WORDS.items():
        assert set(vocab[family].questions) <= words
    assert resolve.ANSWER_TYPES == FORM_TYPES


def test_the_classifiers_value_words_are_the_datas_values() -> None:
    vocab = vocabulary().attributes
    for words, family in [
        (supersession._DRINKS, "drink"),
        (supersession._DIETS, "diet"),
        (supersession._ANIMALS, "pets"),
    ]:
        one_word = {v for v in vocab[family].values if " " not in v}
        assert one_word <= words, family
        forms = {f for v in one_word for f in (v, v + "s", v + "es", v[:-1] + "ies")}
        assert words <= forms, family  # a value or its plural, nothing listed by hand
    assert {"lattes", "puppies", "guinea-pig"} <= supersession._DRINKS | supersession._ANIMALS
    assert "chicken" not in supersession._ANIMALS  # "I had chicken" is a meal, not a pet


@pytest.mark.parametrize("relation", sorted(supersession.SINGLE_VALUED))
def test_relations_are_normalised_lemmas(relation: str) -> None:
    assert relation == supersession._normalise(relation)
