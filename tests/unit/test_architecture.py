"""docs/architecture.md is generated from the imports and must not go stale; the import graph
has no cycle and no import points from a lower layer to a higher one."""

from pathlib import Path

from kgmem.devtools.architecture import cycles, import_graph, layer_of, render, upward_imports

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def test_architecture_page_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "run: python -m kgmem.devtools.architecture > docs/architecture.md"
    )


def test_import_graph_has_no_cycle() -> None:
    assert cycles(import_graph()) == []


def test_no_module_imports_a_higher_layer() -> None:
    assert upward_imports(import_graph()) == []


def test_benchmarks_and_audit_sit_on_top() -> None:
    graph = import_graph()
    top = {m for m in graph if m.startswith(("kgmem.bench", "kgmem.audit"))}
    below = [
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if b in top and not a.startswith(("kgmem.bench", "kgmem.audit", "kgmem.cli"))
    ]
    assert below == []


def test_the_detector_sees_a_cycle_and_an_upward_import() -> None:
    graph = {"kgmem.api": {"kgmem.audit"}, "kgmem.audit": {"kgmem.api"}}
    assert cycles(graph) == [["kgmem.api", "kgmem.audit"]]
    assert upward_imports(graph) == [("kgmem.api", "kgmem.audit")]
    assert layer_of("kgmem.retrieve.chain") > layer_of("kgmem.ingest.extraction.relations")


def test_type_checking_imports_are_edges() -> None:
    # kgmem.retrieve.evidence needs SearchResult only for its annotations
    source = (DOC.parents[1] / "kgmem" / "retrieve" / "evidence.py").read_text(encoding="utf-8")
    assert "if TYPE_CHECKING:\n    from kgmem.retrieve.retriever import SearchResult" in source
    assert "kgmem.retrieve.retriever" in import_graph()["kgmem.retrieve.evidence"]


def test_the_detector_sees_a_cycle_of_any_length() -> None:
    graph = {
        "kgmem.retrieve.a": {"kgmem.retrieve.b"},
        "kgmem.retrieve.b": {"kgmem.retrieve.c"},
        "kgmem.retrieve.c": {"kgmem.retrieve.a"},
        "kgmem.retrieve.d": set(),
    }
    assert cycles(graph) == [["kgmem.retrieve.a", "kgmem.retrieve.b", "kgmem.retrieve.c"]]
