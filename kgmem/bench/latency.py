"""`kgmem bench latency`: kgmem and the peer ``neo4j-agent-memory`` side by side, end to end.

Both systems hold the same conversation (LoCoMo-layout file, one conversation) on the same
server and answer the same questions, interleaved one by one (kgmem, then the peer, for each
question; the order alternates between questions so neither always runs second). Each search
is timed end to end, from the question string to the hits, embedding included: kgmem in this
process (`kgmem.api.Memory.search`), the peer inside its worker (`kgmem.bench.peer_worker`,
run by the peer's own Python, so kgmem's environment needs no peer dependency; the pipe to it
is not timed).

The peer runs with no LLM, its spaCy extractor (or none), the same all-MiniLM-L6-v2 weights
kgmem loads (`kgmem.embed.model_location`), one session per conversation and message search
(``short_term.search_messages``). Without a peer only kgmem is measured.

Report (JSON)::

    {"schema": "kgmem-bench-latency/1", "git_commit", "conversation", "questions": int,
     "k": int, "warmup": int, "load_average": {"start": [1, 5, 15 min], "end": [...]},
     "kgmem": {"n", "p50", "p95", "p99", "mean"} (ms),
     "kgmem_embedding": {... of the query embedding alone},
     "kgmem_embedding_share": {"p50": embed p50 / total p50, "mean": sum embed / sum total},
     "peer": {...} | null, "peer_info": {"version", "ingest_ms", ...} | null,
     "ratios": {"p50": kgmem / peer, ...} | null,
     "throughput": null | {"clients": int, "seconds": float,
                           "kgmem": {"queries", "qps", "n", "p50", "p95", "p99", "mean"},
                           "peer": {...} | null, "qps_ratio": kgmem qps / peer qps | null}}

With ``clients`` > 0 a throughput phase follows: ``clients`` threads share one `Memory` (as
threads of one service would) and ask the conversation's questions round-robin for
``seconds``; then the same for the peer, one worker process per client (its own driver and
model, torch at one intra-op thread as kgmem's query embedding is), so the peer is not held
back by this process's GIL nor by N processes each spinning two threads on the same cores.
Each side runs alone on the machine; the report gives completed questions per second and the
latency of each.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kgmem.api import Memory
from kgmem.bench.locomo import git_commit
from kgmem.bench.metrics import percentile
from kgmem.config import DEFAULT_K
from kgmem.embed import model_location
from kgmem.errors import KgmemError
from kgmem.ingest.loaders.locomo import load_locomo
from kgmem.models import ConversationRecord

__all__ = [
    "PeerError",
    "PeerWorker",
    "interleaved_order",
    "ratios",
    "run_latency",
    "run_throughput",
    "summary",
]

SCHEMA = "kgmem-bench-latency/1"
WORKER = Path(__file__).with_name("peer_worker.py")
STATS = ("p50", "p95", "p99", "mean")


class PeerError(KgmemError):
    """The peer worker could not start or answered with an error."""


def summary(values_ms: Sequence[float]) -> dict[str, float]:
    """``{"n", "p50", "p95", "p99", "mean"}`` of a latency sample in ms (linear percentiles,
    `kgmem.bench.metrics.percentile`), rounded to 0.001 ms.

    Raises:
        ValueError: the sample is empty.
    """
    if not values_ms:
        raise ValueError("summary of an empty sample")
    out = {f"p{q}": round(percentile(values_ms, q), 3) for q in (50, 95, 99)}
    out["mean"] = round(sum(values_ms) / len(values_ms), 3)
    return {"n": len(values_ms), **out}


def ratios(mine: dict[str, float], theirs: dict[str, float]) -> dict[str, float]:
    """``mine[s] / theirs[s]`` for each of p50, p95, p99 and mean, to 3 decimals (< 1: mine is
    faster); a statistic that is 0 on ``theirs`` is left out."""
    return {s: round(mine[s] / theirs[s], 3) for s in STATS if theirs.get(s)}


def run_throughput(
    clients: Sequence[Callable[[str], object]], questions: Sequence[str], seconds: float
) -> dict[str, float]:
    """Closed-loop throughput: one thread per callable in ``clients``, each asking
    ``questions`` round-robin (client ``i`` starts at question ``i``) until ``seconds`` have
    passed; a question started before the deadline is counted when it ends.

    Returns:
        ``{"queries": int, "qps": completed / wall seconds, "n", "p50", "p95", "p99", "mean"}``
        (latencies in ms, `summary`).

    Raises:
        ValueError: no client, no question, or ``seconds`` <= 0.
        Exception: the first error a client raised (the others stop at their next question).
    """
    if not clients or not questions or seconds <= 0:
        raise ValueError("throughput needs at least one client, one question and seconds > 0")
    latencies: list[list[float]] = [[] for _ in clients]
    errors: list[BaseException] = []
    start = time.perf_counter()
    deadline = start + seconds

    def loop(index: int, ask: Callable[[str], object]) -> None:
        i = index
        while not errors and time.perf_counter() < deadline:
            t0 = time.perf_counter()
            try:
                ask(questions[i % len(questions)])
            except BaseException as exc:  # reported to the caller below
                errors.append(exc)
                return
            latencies[index].append((time.perf_counter() - t0) * 1000)
            i += len(clients)

    threads = [
        threading.Thread(target=loop, args=(n, ask), daemon=True) for n, ask in enumerate(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    if errors:
        raise errors[0]
    every = [ms for one in latencies for ms in one]
    if not every:
        raise ValueError("no question finished within the time given")
    return {"queries": len(every), "qps": round(len(every) / wall, 2), **summary(every)}


def interleaved_order(n: int) -> list[tuple[int, bool]]:
    """For questions ``0..n-1``: ``(question, kgmem_first)``, alternating who runs first so
    neither system always finds the other's work just done (caches, CPU frequency)."""
    return [(i, i % 2 == 0) for i in range(n)]


class PeerWorker:
    """The peer's worker process (`kgmem.bench.peer_worker`), one JSON line per request.

    Args:
        python: the peer environment's Python (``neo4j-agent-memory`` installed there).
        threads: if given, the worker's torch intra-op threads (``OMP_NUM_THREADS``).

    Raises:
        PeerError: the process cannot start.
    """

    def __init__(self, python: str | Path, *, threads: int | None = None) -> None:
        env = None
        if threads is not None:  # torch and its BLAS read these at import
            env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
        try:
            self._proc = subprocess.Popen(
                [str(python), str(WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
                env=env,
            )
        except OSError as exc:
            raise PeerError(f"cannot start the peer worker with {python}: {exc}") from exc

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request and return its reply.

        Raises:
            PeerError: the worker exited or replied ``ok: false`` (its message included).
        """
        assert self._proc.stdin is not None and self._proc.stdout is not None
        try:
            self._proc.stdin.write(json.dumps({"op": op, **fields}) + "\n")
            self._proc.stdin.flush()
        except BrokenPipeError as exc:
            raise PeerError(f"the peer worker exited (status {self._proc.poll()})") from exc
        line = self._proc.stdout.readline()
        if not line:
            raise PeerError(f"the peer worker exited (status {self._proc.wait()}) during {op!r}")
        reply: dict[str, Any] = json.loads(line)
        if not reply.get("ok"):
            raise PeerError(f"peer {op!r} failed: {reply.get('error')}")
        return reply

    def close(self) -> None:
        """Ask the worker to disconnect, then wait for it (killed after 30 s)."""
        with contextlib.suppress(PeerError):
            self.call("close")
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


def peer_messages(record: ConversationRecord) -> list[dict[str, Any]]:
    """The conversation as the peer's message dicts, in order: the first speaker is the
    ``user``, every other the ``assistant``; the turn id travels in the metadata."""
    first = record.speakers[0] if record.speakers else None
    return [
        {
            "role": "user" if t.speaker == first else "assistant",
            "content": t.text,
            "timestamp": t.observed_at.isoformat(),
            "metadata": {"turn_id": t.id, "speaker": t.speaker},
        }
        for t in record.turns
    ]


def _throughput(
    memory: Memory,
    peer_python: str | Path | None,
    init: dict[str, Any],
    questions: Sequence[str],
    conversation: str,
    k: int,
    clients: int,
    seconds: float,
) -> dict[str, Any]:
    """The throughput phase of the module docstring: kgmem's threads, then the peer's
    workers (each started, initialised and asked a few untimed questions first)."""
    ours = run_throughput(
        [lambda q: memory.search(q, conversation, k)] * clients, questions, seconds
    )
    theirs: dict[str, float] | None = None
    if peer_python is not None:
        workers: list[PeerWorker] = []
        try:
            for _ in range(clients):
                worker = PeerWorker(peer_python, threads=1)
                workers.append(worker)
                worker.call("init", **init)
                for q in questions[:5]:
                    worker.call("search", query=q, session=conversation, k=k)

            def asker(worker: PeerWorker) -> Callable[[str], object]:
                return lambda q: worker.call("search", query=q, session=conversation, k=k)

            theirs = run_throughput([asker(w) for w in workers], questions, seconds)
        finally:
            for worker in workers:
                worker.close()
    return {
        "clients": clients,
        "seconds": seconds,
        "kgmem": ours,
        "peer": theirs,
        "qps_ratio": round(ours["qps"] / theirs["qps"], 3) if theirs and theirs["qps"] else None,
    }


def _spacy_location(name: str) -> str:
    """The directory of the spaCy pipeline kgmem loads for ``name`` (its offline fallback
    package included), for the peer to load the same pipeline."""
    from kgmem.ingest.extraction.nlp import load_pipeline

    path = load_pipeline(name).path
    return str(path) if path is not None else name


def _peer_init(settings: Any, peer_extraction: str) -> dict[str, Any]:
    """The peer worker's ``init`` arguments: the same server, model and spaCy pipeline."""
    return {
        "uri": settings.neo4j_uri,
        "user": settings.neo4j_user,
        "password": settings.resolved_password() or "",
        "database": settings.neo4j_database,
        "model": model_location(settings.embedder),
        "extraction": peer_extraction,
        "spacy_model": _spacy_location(settings.spacy_model) if peer_extraction == "spacy" else "",
    }


def _start_peer(
    peer_python: str | Path | None,
    init: dict[str, Any],
    record: Any,
    conversation: str,
    peer_extraction: str,
    report: dict[str, Any],
) -> PeerWorker | None:
    """The peer worker, started and given the conversation (``peer_info`` in ``report``);
    None without a peer."""
    if peer_python is None:
        return None
    peer = PeerWorker(peer_python)
    info = peer.call("init", **init)
    ingest = peer.call(
        "ingest",
        session=conversation,
        messages=peer_messages(record),
        extract=peer_extraction != "none",
    )
    report["peer_info"] = {
        "version": info.get("version"),
        "extraction": peer_extraction,
        "messages": ingest["messages"],
        "ingest_ms": round(ingest["ms"], 1),
    }
    return peer


def _timed(
    memory: Memory,
    peer: PeerWorker | None,
    questions: list[str],
    conversation: str,
    k: int,
    warmup: int,
    progress: Callable[[str, int, int], None] | None,
) -> tuple[list[float], list[float], list[float]]:
    """Each question's search time in ms (kgmem's total and embedding share, the peer's),
    the two systems interleaved in alternating order after ``warmup`` untimed questions."""
    ours: list[float] = []
    embeds: list[float] = []
    theirs: list[float] = []

    def kgmem_once(q: str) -> tuple[float, float]:
        t0 = time.perf_counter()
        result = memory.search(q, conversation, k)
        return (time.perf_counter() - t0) * 1000, result.timings_ms.get("embed", 0.0)

    def peer_once(q: str) -> float:
        assert peer is not None
        return float(peer.call("search", query=q, session=conversation, k=k)["ms"])

    for q in questions[:warmup]:
        kgmem_once(q)
        if peer is not None:
            peer_once(q)
    for done, (i, kgmem_first) in enumerate(interleaved_order(len(questions)), start=1):
        q = questions[i]
        if peer is not None and not kgmem_first:
            theirs.append(peer_once(q))
        total, embed = kgmem_once(q)
        ours.append(total)
        embeds.append(embed)
        if peer is not None and kgmem_first:
            theirs.append(peer_once(q))
        if progress:
            progress("questions", done, len(questions))
    return ours, embeds, theirs


def run_latency(
    memory: Memory,
    path: str | Path,
    *,
    conversation: str,
    peer_python: str | Path | None = None,
    peer_extraction: str = "spacy",
    k: int = DEFAULT_K,
    warmup: int = 20,
    limit: int | None = None,
    clients: int = 0,
    seconds: float = 60.0,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """Run the side-by-side measurement and return the report of the module docstring.

    Args:
        memory: a connected memory (the conversation is ingested if missing).
        path: a LoCoMo-layout file.
        conversation: the sample id to use (its questions, all categories).
        peer_python: the peer environment's Python; None measures kgmem alone.
        peer_extraction: the peer's extractor: ``spacy`` or ``none`` (ingest only).
        k: hits per search.
        warmup: questions run by both systems first and not timed (plans, model, caches).
        limit: time only the first ``limit`` questions.
        clients: concurrent clients of the throughput phase (0: no such phase).
        seconds: how long each side of the throughput phase runs.
        progress: callback ``(stage, done, total)``.

    Raises:
        PeerError: the peer worker failed.
        KgmemError: the file or the conversation is unusable.
    """
    from kgmem.errors import MalformedInput

    records = load_locomo(path, [conversation])
    if not records:
        raise MalformedInput(f"no conversation {conversation!r} in {path}")
    record = records[0]
    questions = [q.question for q in record.questions][: limit or None]
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "git_commit": git_commit(),
        "file": str(path),
        "conversation": conversation,
        "questions": len(questions),
        "k": k,
        "warmup": warmup,
        "load_average": {"start": [round(x, 2) for x in os.getloadavg()]},
    }
    if not any(c["conversation_id"] == conversation for c in memory.conversations()):
        memory.add_conversation(record)
    memory.warm()
    report["embedding_backend"] = memory.embedder.query_backend
    init = _peer_init(memory.settings, peer_extraction)
    peer = _start_peer(peer_python, init, record, conversation, peer_extraction, report)
    try:
        ours, embeds, theirs = _timed(memory, peer, questions, conversation, k, warmup, progress)
    finally:
        if peer is not None:
            peer.close()
    report["throughput"] = (
        _throughput(memory, peer_python, init, questions, conversation, k, clients, seconds)
        if clients
        else None
    )
    report["load_average"]["end"] = [round(x, 2) for x in os.getloadavg()]
    report["kgmem"] = summary(ours)
    report["kgmem_embedding"] = summary(embeds)
    report["kgmem_embedding_share"] = {
        "p50": round(report["kgmem_embedding"]["p50"] / report["kgmem"]["p50"], 3),
        "mean": round(sum(embeds) / sum(ours), 3),
    }
    report["peer"] = summary(theirs) if theirs else None
    report["ratios"] = ratios(report["kgmem"], report["peer"]) if theirs else None
    report.setdefault("peer_info", None)
    return report
