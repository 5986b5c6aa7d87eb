"""Generate the architecture page (``docs/architecture.md``) from the code's own imports.

    python -m kgmem.devtools.architecture > docs/architecture.md

Every ``import kgmem…`` / ``from kgmem… import`` in the package is read with `ast`: imports
inside functions count, and so do imports under ``if TYPE_CHECKING:`` (they never run, but a
type-only import is still a dependency: two modules that need each other's types are one idea
split in two, and hiding that edge hides the cycle). Each
module belongs to one layer (`LAYERS`, bottom first); a module may import its own layer and the
layers below it, never one above, and the graph has no cycle. tests/unit/test_architecture.py
fails when the page is stale or a rule is broken, so the drawing cannot rot.
"""

from __future__ import annotations

import ast
from pathlib import Path

__all__ = ["LAYERS", "cycles", "import_graph", "layer_of", "render", "upward_imports"]

ROOT = Path(__file__).resolve().parents[1]

#: (layer name, module prefixes, what the layer is for), bottom first
LAYERS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "foundation",
        (
            "kgmem.config",
            "kgmem.errors",
            "kgmem.models",
            "kgmem.turns",
            "kgmem.lexicon",
            "kgmem.embed",
            "kgmem.embed_onnx",
            "kgmem.time",
            "kgmem.roles",
            "kgmem.metadata",
        ),
        "Settings, the typed error tree, the pydantic records that cross module boundaries, "
        "the id rules and the one place a turn record is validated (`turns`), the speaker "
        "roles (`roles`: user, assistant, system, tool; and a document's chunks), the rules of "
        "turn metadata (`metadata`: keys, values, filters), the relation "
        "lexicon (`lexicon`, a data file), the sentence embedder shared by both paths, and the "
        "one grammar of time. Imports nothing of kgmem above it.",
    ),
    (
        "store",
        ("kgmem.store",),
        "The only importer of the neo4j driver: the Cypher catalogue (one statement per file "
        "under cypher/), the `Store` seam (sessions, retries, typed errors), the schema and the "
        "local server manager.",
    ),
    (
        "ingest",
        ("kgmem.ingest", "kgmem.truth"),
        "The write path: loaders (LoCoMo, the generic chat format, numbered fact lists) turn "
        "files into conversation records, and documents (Markdown, plain text) into chunks; extractors (spaCy clauses, lexicon statements) build "
        "facts citing their turns; entities, dates, supersession keys and events; the writer "
        "and the pipeline that batches it all into idempotent MERGE writes. Beside it, the "
        "truth decisions learned from the labelled corpus (`truth`: features, shipped weights, "
        "training), pure numpy, for both paths to consume.",
    ),
    (
        "retrieve",
        ("kgmem.retrieve",),
        "The read path: its configuration (`config`, built from Settings), the question read "
        "once (`question`, with its cues, times and names), the query plan, one retriever "
        "class per strategy over a template (`retriever`, `cosine`, `linked`), candidate "
        "generators, the scorer, current-value resolution, the chain operator (multi-hop over "
        "current values) and the Browser statement of a result's evidence. It may use "
        "ingest's pure rules (supersession families), never its writers.",
    ),
    (
        "api",
        ("kgmem.api", "kgmem"),
        "`Memory`, the one public entry point over both paths; the package root re-exports it.",
    ),
    (
        "surfaces",
        (
            "kgmem.reader",
            "kgmem.mcp",
            "kgmem.aio",
            "kgmem.adapters",
            "kgmem.steer",
            "kgmem.service",
        ),
        "Thin layers over `Memory`: the optional citation-locked reader, the MCP server, "
        "the search an agent steers (`steer`: pages, exact phrases, folded names, a token "
        "budget), the HTTP API (`service`: FastAPI, bearer tokens, OpenAPI), "
        "`AsyncMemory` (the same logic behind an awaited API; see the last section) and the "
        "framework adapters (LangGraph store, LangChain and neo4j-graphrag retrievers).",
    ),
    (
        "bench & audit",
        ("kgmem.bench", "kgmem.audit"),
        "Benchmarks (LoCoMo evidence recall with leave-one-conversation-out tuning, "
        "MemoryAgentBench FactConsolidation through `Memory`), metrics and the evidence audit. "
        "They sit on top: nothing below imports them.",
    ),
    (
        "cli & tools",
        ("kgmem.cli", "kgmem.devtools"),
        "The `kgmem` command (a click group over everything above) and developer tools that "
        "generate docs from the code.",
    ),
)


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def layer_of(module: str) -> int:
    """Index in `LAYERS` of a module (longest matching prefix wins).

    Raises:
        ValueError: a module no layer claims.
    """
    best: tuple[int, int] | None = None
    for i, (_, prefixes, _) in enumerate(LAYERS):
        for prefix in prefixes:
            inside = module == prefix or module.startswith(prefix + ".")
            if inside and (best is None or len(prefix) > best[1]):
                best = (i, len(prefix))
    if best is None:
        raise ValueError(f"module {module} belongs to no layer in LAYERS")
    return best[0]


def import_graph() -> dict[str, set[str]]:
    """``{module: modules of kgmem it imports}`` for every module of the package (imports in
    functions and under ``if TYPE_CHECKING:`` included)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for target in targets:
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (each one a cycle), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """``(importer, imported)`` pairs where the imported module sits in a higher layer."""
    return sorted(
        (a, b) for a, targets in graph.items() for b in targets if layer_of(b) > layer_of(a)
    )


def _unit(module: str) -> str:
    """The drawn box of a module: its subpackage (``kgmem.ingest``) or itself (``kgmem.api``)."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _node(unit: str) -> str:
    return unit.replace(".", "_")


def render() -> str:
    """The whole page as Markdown (a Mermaid drawing, one paragraph per layer, the edges)."""
    graph = import_graph()
    lines = [
        "# Architecture",
        "",
        "Generated by `python -m kgmem.devtools.architecture` from the package's imports; do",
        "not edit (tests/unit/test_architecture.py fails when it is stale). Layers are listed",
        "bottom first; a module imports its own layer and those below, never one above, and the",
        "import graph has no cycle. Imports under `if TYPE_CHECKING:` count like any other. The",
        "drawing shows subpackages as one box; the lists below give every module's imports.",
        "",
        f"Cycles: {len(cycles(graph))}. Upward imports: {len(upward_imports(graph))}.",
        "",
        "```mermaid",
        "flowchart BT",
    ]
    units = {_unit(m) for m in graph}
    for i, (name, _, _) in enumerate(LAYERS):
        lines.append(f'  subgraph L{i}["{i}. {name}"]')
        lines.extend(f'    {_node(u)}["{u}"]' for u in sorted(units) if layer_of(u) == i)
        lines.append("  end")
    edges = {(_unit(a), _unit(b)) for a in graph for b in graph[a]}
    lines.extend(f"  {_node(a)} --> {_node(b)}" for a, b in sorted(edges) if a != b)
    lines += ["```", ""]
    for i, (name, _, text) in enumerate(LAYERS):
        members = sorted(m for m in graph if layer_of(m) == i)
        lines += [f"## {i}. {name}", "", text, ""]
        for m in members:
            deps = ", ".join(f"`{d}`" for d in sorted(graph[m])) or "nothing of kgmem"
            lines.append(f"- `{m}` imports {deps}")
        lines.append("")
    return "\n".join(lines) + "\n" + SYNC_AND_ASYNC + "\n"


SYNC_AND_ASYNC = """## Sync and async: one logic, two I/O shells

kgmem's logic — planning, the embedding model, spaCy extraction, date resolution, the write
path's batching, the read path's scoring and current-value resolution — exists once, as plain
synchronous Python that talks to Neo4j only through the `Store` seam
(`kgmem/store/driver.py`: `read(name, **params)`, `write(...)`, `write_batches(...)`, by
catalogue statement name). Two I/O shells implement that seam:

```
                 Memory (sync API)                    AsyncMemory (kgmem/aio.py, awaited API)
                        │                                         │ anyio.to_thread.run_sync
                        ▼                                         ▼  (worker thread)
        ┌──────────────────────────── the one logic: kgmem.api.Memory ─────────────────────────┐
        │ plan → embed → linked read → score → resolve │ load → embed → extract → dates → write │
        └───────────────────────────────────┬──────────────────────────────────────────────────┘
                                            │ store.read / store.write (named statements)
                  ┌─────────────────────────┴─────────────────────────┐
                  ▼                                                   ▼
   Store (neo4j.Driver, managed tx)               LoopStore ──anyio.from_thread.run──► AsyncStore
                                                  (kgmem/store/async_driver.py)   (neo4j.AsyncDriver,
                                                                                   managed async tx,
                                                                                   on the event loop)
```

- **`Memory`** runs the logic in the caller's thread on `neo4j.Driver`.
- **`AsyncMemory`** runs the same `Memory` methods in a worker thread
  (`anyio.to_thread.run_sync`), so model inference (MiniLM, spaCy) never blocks the event loop.
  Its `Memory` is built on a `LoopStore`, whose `read`/`write` send each round trip back to the
  event loop (`anyio.from_thread.run`), where `AsyncStore` runs it in a managed transaction of
  `neo4j.AsyncDriver`. Batching (`Store.write_batches`) and error translation
  (`translate_error`) are shared, not copied.
- **One surface.** `Memory` is a facade over the collaborators of `kgmem/memory/` (schema
  keeper, ingestors, owners, writer, forgetter, searcher, facts, keyed items, read caches);
  each of its methods is derived from the collaborator's (`kgmem.memory.delegate.delegate`)
  and each of `AsyncMemory`'s from `Memory`'s (`kgmem.memory.delegate.awaited`), keeping name,
  signature and docstring; `tests/unit/test_memory_surface.py` fails when a public `Memory`
  method has no awaited twin. The MCP tools and the adapters call these methods only
  (`tests/unit/test_surfaces_through_memory.py`).
- The event loop is free while a call plans, embeds or scores; Neo4j I/O happens on the loop.
  `tests/integration/test_async.py` checks both: a ticker task keeps running during
  `add_turns` and `search`, and the hits, score terms and history equal the sync `Memory`'s.
- An `AsyncMemory` belongs to one event loop (the async driver binds to the loop that first uses
  it). `kgmem mcp` builds it for the server's loop and closes it in the server's lifespan; it
  verifies the connection first with a short-lived sync `Store`, before the loop starts.
- The MCP tools are written once against either: `build_server` accepts an `AsyncMemory` (what
  `kgmem mcp` serves) or a `Memory` (its calls then run in a worker thread; the in-process tests
  use this).
- Framework adapters sit on top: the LangGraph store's `abatch` and LangChain's `ainvoke` run the
  sync API in a worker thread; neo4j-graphrag's retrievers are synchronous.

Trade-off: each concurrent call holds one worker thread (anyio's default limit is 40) while
its round trips run on the loop; the alternative — a "sans-I/O" read path that yields statement
requests to either shell — would avoid the threads but change every generator's signature."""
"""Hand-written section appended to the generated page: how `Memory` and `AsyncMemory` share
one logic (kept here, beside the generator, so the page has one source)."""


if __name__ == "__main__":
    print(render(), end="")
