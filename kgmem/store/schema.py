"""Apply the schema (``cypher/schema/*.cypher``): constraints, range, vector, fulltext indexes.

`apply_schema` is idempotent (every statement is ``IF NOT EXISTS``). Before creating anything
it compares existing vector indexes with the embedder's dimension: a mismatch raises
`SchemaMismatch` naming both dimensions, so two embedders never mix in one index.
"""

from __future__ import annotations

from kgmem.errors import SchemaMismatch
from kgmem.store.driver import Store

__all__ = ["VECTOR_INDEXES", "apply_schema", "check_vector_dimensions"]

#: the vector indexes kgmem creates (index name -> statement that creates it)
VECTOR_INDEXES = {
    "turn_embedding": "schema/create_vector_turn_embedding",
    "fact_embedding": "schema/create_vector_fact_embedding",
}


def check_vector_dimensions(store: Store, dimensions: int) -> None:
    """Raise `SchemaMismatch` if a kgmem vector index exists with another dimension."""
    for row in store.read("read/list_vector_indexes"):
        if row["name"] in VECTOR_INDEXES and row["dimensions"] is not None:
            found = int(row["dimensions"])
            if found != dimensions:
                raise SchemaMismatch(row["name"], dimensions, found)


def apply_schema(store: Store, dimensions: int) -> list[str]:
    """Create every constraint and index that is missing.

    Args:
        store: an open store.
        dimensions: the embedder's output dimension (384 for all-MiniLM-L6-v2).

    Returns:
        the names of the statements run (all of ``cypher/schema/``, sorted).

    Raises:
        SchemaMismatch: an existing vector index has another dimension.
    """
    check_vector_dimensions(store, dimensions)
    names = list(store.queries.names("schema"))
    for name in names:
        store.write(name, dimensions=dimensions)
    store.write("write/await_indexes")
    return names
