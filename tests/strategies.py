"""Shared test material for the reliability suite: hypothesis profile and strategies, the
injection corpus, graph snapshots (counts + content checksum) and the figures the suite reports.

Importing this module registers and loads the hypothesis profile ``kgmem``: ``max_examples``
comes from ``KGMEM_FUZZ_EXAMPLES`` (default 200), no deadline (a loaded 2-core CI box has
jitter), no example database (the runs stay reproducible by seed, nothing is written in the repo).

Figures: tests call `record_figure(name, n)`; when ``KGMEM_FIGURES_FILE`` is set, each call
appends one JSON line ``{"figure": name, "value": n}`` there (docs/reliability.md is built from
those lines); otherwise figures are not recorded.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from kgmem.store.tenant import tenant_token

__all__ = [
    "DATA",
    "FUZZ_EXAMPLES",
    "INJECTION_STRINGS",
    "GraphSnapshot",
    "chat_documents",
    "json_values",
    "locomo_samples",
    "nasty_text",
    "record_figure",
    "snapshot",
]

DATA = Path(__file__).resolve().parent / "data"

#: hypothesis budget per fuzz test (env ``KGMEM_FUZZ_EXAMPLES``, default 200)
FUZZ_EXAMPLES = int(os.environ.get("KGMEM_FUZZ_EXAMPLES", "200"))

settings.register_profile(
    "kgmem",
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("kgmem")

#: strings that would change the graph if any of them reached Cypher as code, not as a value
INJECTION_STRINGS: tuple[str, ...] = (
    "' OR 1=1 //",
    '" OR 1=1 //',
    '"})-[:X]->() DETACH DELETE n //',
    "'}) MATCH (n) DETACH DELETE n //",
    "MATCH (n) DETACH DELETE n",
    "`Turn`",
    "``",
    "`) DETACH DELETE n //",
    "$param",
    "$conversation_id",
    "{conversation_id: 'conv-26'}",
    "}{",
    "\u0000",
    "a\u0000b",
    "\\",
    "\\' \\\" \\u0027",
    "/* comment */ RETURN 1",
    "// line comment",
    "CALL db.clearQueryCaches()",
    "CALL apoc.periodic.iterate('MATCH (n) RETURN n','DETACH DELETE n',{})",
    ":param x => 1",
    "${jndi:ldap://127.0.0.1/x}",
    "%s %d {0} {name}",
    "\u202eevil\u202c",  # right-to-left override
    "שלום עולם مرحبا",
    "emoji 🧠🔥👩‍👩‍👧",
    "tab\tnew\nline\rcarriage",
    "\x1b[31mred\x1b[0m",
    "'; DROP TABLE turns; --",
)


def record_figure(name: str, value: int | float) -> None:
    """Append ``{"figure": name, "value": value}`` to ``$KGMEM_FIGURES_FILE`` if it is set."""
    target = os.environ.get("KGMEM_FIGURES_FILE")
    if not target:
        return
    with open(target, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"figure": name, "value": value}) + "\n")


# --- strategies ---------------------------------------------------------------------------------

#: any text hypothesis can make, weighted towards the characters that break naive code
nasty_text = st.one_of(
    st.text(max_size=60),
    st.sampled_from(INJECTION_STRINGS),
    st.text(alphabet=st.sampled_from("'\"`\\{}[]()$:;/ \u0000\u202e\t\n🧠"), max_size=30),
)

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)

_good_stamps = st.sampled_from(
    ["2024-05-08T13:56:00+02:00", "2023-05-08T13:56:00", "1:56 pm on 8 May, 2023", "2020-02-29"]
)


def _maybe(
    strategy: st.SearchStrategy[Any], bad: st.SearchStrategy[Any] = json_values
) -> st.SearchStrategy[Any]:
    """Mostly (~90 %) the well-formed value, sometimes ``bad`` (a wrong-typed value)."""
    return st.integers(0, 19).flatmap(lambda roll: bad if roll >= 18 else strategy)


_stamps = _maybe(_good_stamps, st.one_of(st.text(max_size=25), json_values))


#: hostile but non-blank text (what a well-formed field may hold)
_filled = nasty_text.filter(lambda s: bool(s.strip()))


_turn = st.fixed_dictionaries(
    {"speaker": _maybe(_filled), "text": _maybe(_filled)},
    optional={"id": _maybe(_filled), "image_caption": _maybe(nasty_text)},
)

chat_documents = st.fixed_dictionaries(
    {
        "conversation_id": _maybe(_filled),
        "sessions": _maybe(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "started_at": _stamps,
                        "turns": _maybe(st.lists(_turn, min_size=1, max_size=4)),
                    },
                ),
                min_size=1,
                max_size=3,
            )
        ),
    }
)


@st.composite
def locomo_samples(draw: st.DrawFn) -> Any:
    """A LoCoMo-layout sample, mostly well-formed, with wrong types and odd text mixed in."""
    sessions = draw(st.integers(1, 3))
    conversation: dict[str, Any] = {"speaker_a": draw(_maybe(_filled)), "speaker_b": "Bo"}
    observation: dict[str, Any] = {}
    for n in range(1, sessions + 1):
        conversation[f"session_{n}_date_time"] = draw(_stamps)
        turns = draw(
            _maybe(
                st.lists(
                    st.fixed_dictionaries(
                        {"speaker": _maybe(_filled), "text": _maybe(_filled)},
                        optional={"blip_caption": _maybe(nasty_text)},
                    ),
                    min_size=1,
                    max_size=3,
                )
            )
        )
        if isinstance(turns, list):  # dia ids: mostly well-formed and unique, sometimes not
            for k, turn in enumerate(turns, start=1):
                if isinstance(turn, dict):
                    turn["dia_id"] = draw(_maybe(st.just(f"D{n}:{k}") | _filled))
        conversation[f"session_{n}"] = turns
        observation[f"session_{n}_observation"] = draw(
            _maybe(
                st.dictionaries(
                    nasty_text, st.lists(st.lists(nasty_text, max_size=3), max_size=2), max_size=2
                )
            )
        )
    sample: dict[str, Any] = {
        "sample_id": draw(_maybe(_filled)),
        "conversation": draw(_maybe(st.just(conversation))),
        "observation": observation,
        "qa": draw(
            _maybe(
                st.lists(
                    st.fixed_dictionaries(
                        {
                            "question": _maybe(nasty_text),
                            "evidence": _maybe(st.lists(nasty_text, max_size=3)),
                        },
                        optional={"answer": json_values, "category": json_values},
                    ),
                    max_size=2,
                )
            )
        ),
    }
    return sample


# --- graph snapshots ------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """Neo4j values → JSON-able, order-stable values (temporal values as ISO 8601 text)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    to_native = getattr(value, "to_native", None)
    if callable(to_native):
        value = to_native()
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


_EVENT_DIGEST = re.compile(r":ev:[0-9a-f]+")


class GraphSnapshot:
    """Everything stored for one conversation, minus embeddings.

    Attributes:
        nodes: sorted JSON lines ``[labels, properties]`` of every node whose ``conversation_id``
            is the conversation (``embedding`` dropped).
        edges: sorted JSON lines ``[type, start id, end id, properties]`` of every relationship
            touching such a node.
        embeddings: node id → embedding (list of floats) for nodes that have one.
        checksum: SHA-256 over nodes and edges (hex).
        counts: nodes per label and edges per type.
    """

    def __init__(
        self, nodes: list[str], edges: list[str], embeddings: dict[str, list[float]]
    ) -> None:
        self.nodes = sorted(nodes)
        self.edges = sorted(edges)
        self.embeddings = embeddings
        digest = hashlib.sha256()
        for line in (*self.nodes, "--", *self.edges):
            digest.update(line.encode("utf-8", "surrogatepass") + b"\n")
        self.checksum = digest.hexdigest()
        counts: dict[str, int] = {}
        for line in self.nodes:
            key = ":".join(json.loads(line)[0])
            counts[key] = counts.get(key, 0) + 1
        for line in self.edges:
            key = "-" + json.loads(line)[0] + "->"
            counts[key] = counts.get(key, 0) + 1
        self.counts = counts

    def canonical(self, conversation_id: str) -> str:
        """The checksum with ``conversation_id`` replaced by a placeholder everywhere (and event
        ids' digests and the fulltext tenant token ``tk``, which hash the conversation id), so
        that two copies of one input ingested under different conversation ids compare equal."""

        token = tenant_token(conversation_id)  # the fulltext tenant token hashes the id too

        def neutral(line: str) -> str:
            line = line.replace(conversation_id, "<cid>").replace(f'"{token}"', '"<tk>"')
            return _EVENT_DIGEST.sub(":ev:#", line)

        digest = hashlib.sha256()
        for line in sorted(neutral(x) for x in self.nodes):
            digest.update(line.encode("utf-8", "surrogatepass") + b"\n")
        digest.update(b"--\n")
        for line in sorted(neutral(x) for x in self.edges):
            digest.update(line.encode("utf-8", "surrogatepass") + b"\n")
        return digest.hexdigest()

    def max_embedding_drift(self, other: GraphSnapshot) -> float:
        """Largest absolute difference between the two snapshots' embeddings (same node ids)."""
        assert len(self.embeddings) == len(other.embeddings)
        worst = 0.0
        for (_, vec), (_, theirs) in zip(
            sorted(self.embeddings.items()), sorted(other.embeddings.items()), strict=True
        ):
            assert len(vec) == len(theirs)
            worst = max([worst, *(abs(a - b) for a, b in zip(vec, theirs, strict=True))])
        return worst


def snapshot(driver: Any, conversation_id: str) -> GraphSnapshot:
    """Read a `GraphSnapshot` of ``conversation_id`` through a raw neo4j driver."""
    with driver.session() as session:
        node_rows = session.run(
            "MATCH (n) WHERE n.conversation_id = $cid "
            "RETURN labels(n) AS labels, properties(n) AS props",
            cid=conversation_id,
        ).data()
        edge_rows = session.run(
            "MATCH (a)-[r]->(b) WHERE a.conversation_id = $cid OR b.conversation_id = $cid "
            "RETURN type(r) AS type, a.id AS start, b.id AS end, properties(r) AS props",
            cid=conversation_id,
        ).data()
    nodes, embeddings = [], {}
    for row in node_rows:
        props = dict(row["props"])
        vector = props.pop("embedding", None)
        if vector is not None:
            embeddings[str(props.get("id"))] = [float(x) for x in vector]
        nodes.append(
            json.dumps([sorted(row["labels"]), _plain(props)], ensure_ascii=False, sort_keys=True)
        )
    edges = [
        json.dumps(
            [r["type"], r["start"], r["end"], _plain(r["props"])],
            ensure_ascii=False,
            sort_keys=True,
        )
        for r in edge_rows
    ]
    return GraphSnapshot(nodes, edges, embeddings)
