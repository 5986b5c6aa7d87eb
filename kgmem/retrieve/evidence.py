"""The Neo4j Browser statement that draws a search result's evidence subgraph.

Lives on the read path (not in `kgmem.audit`) so that `Memory.evidence_cypher` needs nothing
above the API layer; `kgmem.audit` re-exports it for notebooks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgmem.store.catalogue import catalogue

if TYPE_CHECKING:
    from kgmem.retrieve.retriever import SearchResult

__all__ = ["cypher_string", "evidence_cypher"]


def cypher_string(value: str) -> str:
    """``value`` as a single-quoted Cypher string literal (backslashes and quotes escaped)."""
    escaped = (
        value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
    )
    return f"'{escaped}'"


def evidence_cypher(result: SearchResult) -> str:
    """A Neo4j Browser script that draws the evidence subgraph of ``result``'s hits.

    The script is a ``:param turn_ids => [...]`` line (the hit ids inlined as a list literal,
    best first) followed by the statement of ``cypher/browser/evidence_subgraph.cypher``, so a
    person pastes it into Browser's editor and runs it as is (Browser runs the two statements
    one after the other; the statement's own ``// :param`` example lines are comments).

    Args:
        result: a search result (its ``hits`` give the turn ids; ``query`` goes in a comment).

    Returns:
        the script text, ending with a newline.
    """
    ids = ", ".join(cypher_string(hit.turn_id) for hit in result.hits)
    question = " ".join(result.query.split())
    lines = catalogue()["browser/evidence_subgraph"].splitlines()
    # drop the file's example `// :param` comments: the real :param line replaces them
    statement = "\n".join(line for line in lines if not line.lstrip().startswith("// :param"))
    # comments must stay one line each: a newline in a user-given string would start a statement
    tenant = " ".join(result.conversation_id.split())
    header = f"conversation {tenant}, {len(result.hits)} hits ({result.engine})"
    return f"// evidence for: {question}\n// {header}\n:param turn_ids => [{ids}];\n{statement};\n"
