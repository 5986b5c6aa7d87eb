"""Framework adapters: kgmem where agent builders already are. Each is an optional extra and
imports its framework only when its module is imported.

- `kgmem.adapters.langgraph` (``kgmem[langgraph]``): ``langgraph.store.base.BaseStore``;
  namespace → conversation, item → turn (versions linked by ``SUPERSEDES``).
- `kgmem.adapters.langchain` (``kgmem[langchain]``): ``langchain_core.retrievers.BaseRetriever``;
  query → `Memory.search` hits as ``Document`` s.
- `kgmem.adapters.graphrag` (``kgmem[graphrag]``): ``neo4j_graphrag.retrievers.base.Retriever``;
  ``search(query_text, top_k)`` → hits as ``RetrieverResultItem`` s.

The MCP server (`kgmem.mcp`) needs no extra: the ``mcp`` SDK is a core dependency.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` or fail with the ``pip install`` line that brings it.

    Raises:
        ImportError: the extra is not installed (the message names it).
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            f"{module!r} is not installed; install the adapter's extra: "
            f"pip install 'kgmem[{extra}]'"
        ) from exc
