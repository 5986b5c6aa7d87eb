"""The HTTP API as a client sees it: a real ``kgmem serve`` process, httpx requests, bearer
tokens. Isolation is tested per endpoint: a token never reaches another tenant's data, and the
answer is the same 404 whether that data exists or not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.http_server import Served

TURNS = [
    {"speaker": "Ana", "text": "I moved to Lisbon last week, near the river."},
    {"speaker": "Bo", "text": "Nice. My order number is ZX-4417, it still has not arrived."},
    {"speaker": "Ana", "text": "I adopted a cat called Miso in March."},
    {"speaker": "Bo", "text": "I work at the Lakeview Clinic as a nurse."},
]


@pytest.fixture(scope="module")
def served(http_served: Served) -> Served:
    """The shared ``kgmem serve`` (conftest ``http_served``) with the tenants' turns written
    through it, one conversation per token."""
    for name in ("a", "b", "c"):
        with http_served.client(name) as http:
            reply = http.post(
                "/turns", json={"conversation_id": http_served.conversations[name], "turns": TURNS}
            )
            assert reply.status_code == 200, reply.text
    return http_served


def _requests(served: Served, target: str, *, owner: str | None = None) -> dict[str, Any]:
    """One request per endpoint aimed at conversation ``target`` (or at ``owner``)."""
    scope: dict[str, Any] = {"owner": owner} if owner else {"conversation_id": target}
    return {
        "/turns": {"conversation_id": target, "turns": [{"speaker": "x", "text": "hello"}]}
        | ({"owner": owner} if owner else {}),
        "/documents": {"text": "# Notes\n\nhello", "source": "notes.md", "conversation_id": target}
        | ({"owner": owner} if owner else {}),
        "/search": scope | {"query": "where does Ana live"},
        "/current": scope | {"entity": "Ana", "relation": "residence"},
        "/history": scope | {"entity": "Ana", "relation": "residence"},
        "/profile": scope | {"entity": "Ana"},
        "/timeline": scope,
        "/forget/turns": {"conversation_id": target, "turn_ids": ["t0"]},
        "/forget/about": {"conversation_id": target, "description": "my cat"},
    }


ENDPOINTS = list(_requests(Served(url="", tag=""), "x"))


def _shape(reply: Any, *ids: str) -> tuple[int, str, str]:
    body = reply.json()
    message = body["message"]
    for i in ids:
        message = message.replace(i, "<id>")
    return reply.status_code, body["error"], message


@pytest.mark.parametrize("path", ENDPOINTS)
def test_no_or_unknown_token_is_401(served: Served, path: str) -> None:
    body = _requests(served, served.conversations["a"])[path]
    with served.client(None) as http:
        reply = http.post(path, json=body)
        assert reply.status_code == 401
        assert reply.headers["www-authenticate"] == "Bearer"
        assert reply.json()["error"] == "Unauthorized"
        forged = http.post(path, json=body, headers={"Authorization": "Bearer not-a-token"})
        assert forged.status_code == 401


@pytest.mark.parametrize("path", ENDPOINTS)
def test_another_owners_data_is_404_whatever_exists(served: Served, path: str) -> None:
    """Token A aimed at owner B's conversation, at owner B, and at a conversation that does
    not exist: the same 404 (type and message up to the id), and B's data is unchanged."""
    suffix = path.strip("/").replace("/", "-")
    other, missing = served.conversations["b"], f"it-http-none-{served.tag}-{suffix}"
    with served.client("a") as http:
        existing = http.post(path, json=_requests(served, other)[path])
        absent = http.post(path, json=_requests(served, missing)[path])
        by_owner = http.post(path, json=_requests(served, other, owner=served.owners["b"])[path])
    assert existing.status_code == 404, existing.text
    assert by_owner.status_code == 404, by_owner.text
    if path in ("/turns", "/documents"):  # a new conversation is the owner's to create
        assert absent.status_code == 200
    else:
        assert _shape(existing, other) == _shape(absent, missing)
    with served.client("b") as http:  # B still has all its turns
        timeline = http.post("/timeline", json={"conversation_id": other}).json()
    assert sum(row["turns"] for row in timeline) == len(TURNS)


@pytest.mark.parametrize("path", ENDPOINTS)
def test_conversation_token_reaches_only_its_conversations(served: Served, path: str) -> None:
    """Token C (a set of conversations) aimed at owner A's conversation, or at owner A (every
    endpoint that takes an owner): 404."""
    own, owner = served.conversations["c"], served.owners["a"]
    with served.client("c") as http:
        outside = http.post(path, json=_requests(served, served.conversations["a"])[path])
        assert outside.status_code == 404, outside.text
        if not path.startswith("/forget"):  # forgetting takes no owner
            owner_wide = http.post(path, json=_requests(served, own, owner=owner)[path])
            assert owner_wide.status_code == 404, owner_wide.text


def test_owner_token_searches_its_owner_without_naming_it(served: Served) -> None:
    with served.client("a") as http:
        reply = http.post("/search", json={"query": "Where does Ana live?", "k": 3})
    assert reply.status_code == 200, reply.text
    hits = reply.json()["hits"]
    threads = {h["conversation_id"] for h in hits}
    assert served.conversations["a"] in threads and served.conversations["b"] not in threads
    first = hits[0]
    assert set(first) >= {"turn_id", "session", "date", "speaker", "text", "why", "event_date"}


def test_malformed_input_is_422_naming_the_field(served: Served) -> None:
    cid = served.conversations["c"]
    with served.client("c") as http:
        k = http.post("/search", json={"conversation_id": cid, "query": "x", "k": 0})
        colon = http.post("/search", json={"conversation_id": "a:b", "query": "x"})
        missing = http.post("/search", json={"conversation_id": cid})
        when = http.post("/search", json={"conversation_id": cid, "query": "x", "since": "soon"})
    assert (k.status_code, k.json()["argument"]) == (422, "k")
    assert (colon.status_code, colon.json()["argument"]) == (422, "conversation_id")
    assert (missing.status_code, missing.json()["argument"]) == (422, "query")
    assert (when.status_code, when.json()["argument"]) == (422, "since")
    assert k.json()["error"] == colon.json()["error"] == "MalformedInput"


def test_pages_cursor_and_its_errors(served: Served) -> None:
    cid = served.conversations["c2"]
    turns = [{"speaker": "Ana", "text": f"Note {i}: the garden needs water."} for i in range(12)]
    with served.client("c") as http:
        assert http.post("/turns", json={"conversation_id": cid, "turns": turns}).is_success
        query = {"conversation_id": cid, "query": "garden water", "k": 5}
        seen: list[str] = []
        cursor = None
        for _ in range(4):
            page = http.post("/search", json=query | {"cursor": cursor}).json()
            seen += [h["turn_id"] for h in page["hits"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert len(seen) == len(set(seen)) == 12  # every turn once, none repeated
        first = http.post("/search", json=query).json()
        again = http.post("/search", json=query | {"cursor": first["next_cursor"]}).json()
        assert again == http.post("/search", json=query | {"cursor": first["next_cursor"]}).json()
        other = http.post("/search", json=query | {"query": "cats", "cursor": first["next_cursor"]})
        assert (other.status_code, other.json()["reason"]) == (422, "mismatched")
        tampered = first["next_cursor"][:-2] + ("AA" if first["next_cursor"][-2:] != "AA" else "BB")
        forged = http.post("/search", json=query | {"cursor": tampered})
        assert (forged.status_code, forged.json()["reason"]) == (422, "forged")
        assert http.post(
            "/turns", json={"conversation_id": cid, "turns": [{"speaker": "Bo", "text": "ok"}]}
        ).is_success
        stale = http.post("/search", json=query | {"cursor": first["next_cursor"]})
        assert (stale.status_code, stale.json()["reason"]) == (422, "stale")
        assert stale.json()["error"] == "InvalidCursor"


def test_exact_speaker_and_token_budget(served: Served) -> None:
    cid = served.conversations["c"]
    with served.client("c") as http:
        exact = http.post(
            "/search", json={"conversation_id": cid, "query": "parcel", "exact": "zx-4417"}
        ).json()
        assert [h["text"] for h in exact["hits"]] == [TURNS[1]["text"]]
        folded = http.post(
            "/search", json={"conversation_id": cid, "query": "cat", "speaker": "  ÁNA "}
        ).json()
        assert folded["hits"] and {h["speaker"] for h in folded["hits"]} == {"Ana"}
        unknown = http.post(
            "/search", json={"conversation_id": cid, "query": "cat", "speaker": "Zed"}
        ).json()
        assert unknown["unknown_names"] == ["Zed"] and unknown["hits"] == []
        assert "Ana" in unknown["speakers"]
        trimmed = http.post(
            "/search", json={"conversation_id": cid, "query": "Ana", "k": 4, "max_tokens": 20}
        ).json()
        assert trimmed["tokens"] <= 20 and trimmed["omitted"] >= 1
        assert trimmed["next_cursor"] is not None


def test_health_request_ids_and_openapi(served: Served) -> None:
    with served.client(None) as http:
        health = http.get("/health", headers={"X-Request-ID": "probe-1"})
        spec = http.get("/openapi.json").json()
    assert health.json() == {"status": "ok", "neo4j": "ok"}
    assert health.headers["x-request-id"] == "probe-1"
    assert set(ENDPOINTS) | {"/health"} <= set(spec["paths"])
    assert served.log is not None
    assert "request_id=probe-1 GET /health -> 200" in Path(served.log).read_text(encoding="utf-8")


def test_turn_metadata_is_stored_filtered_and_checked(served: Served) -> None:
    cid = f"it-http-meta-{served.tag}"
    turns = [
        {"speaker": "Ana", "text": "The billing deploy failed with E1234.", "metadata": {"sev": 3}},
        {
            "speaker": "Ana",
            "text": "The search deploy went fine.",
            "metadata": {"project": "search"},
        },
        {
            "speaker": "Bo",
            "text": "The docs deploy is due soon.",
            "metadata": {"due": "2024-05-01"},
        },
    ]
    with served.client("a") as http:
        body = {"conversation_id": cid, "turns": turns, "metadata": {"project": "billing"}}
        assert http.post("/turns", json=body).status_code == 200
        query = {"conversation_id": cid, "query": "deploy"}
        eq = http.post("/search", json=query | {"where": {"project": "billing"}}).json()
        assert {h["text"] for h in eq["hits"]} == {turns[0]["text"], turns[2]["text"]}
        by_text = {h["text"]: h["metadata"] for h in eq["hits"]}
        assert by_text[turns[2]["text"]] == {"due": "2024-05-01", "project": "billing"}
        assert any("project" in note for note in eq["notes"])  # widened pool, said so
        ranged = http.post("/search", json=query | {"where": {"due": {"lt": "2024-06-01"}}})
        assert [h["text"] for h in ranged.json()["hits"]] == [turns[2]["text"]]
        either = http.post("/search", json=query | {"where": {"project": ["search", "x"]}})
        assert [h["text"] for h in either.json()["hits"]] == [turns[1]["text"]]
        nested = http.post(
            "/turns",
            json={"conversation_id": cid, "turns": [turns[0] | {"metadata": {"a": {"b": 1}}}]},
        )
        reserved = http.post(
            "/turns", json={"conversation_id": cid, "turns": turns, "metadata": {"text": "x"}}
        )
        bad_where = http.post("/search", json=query | {"where": {"sev": {"gt": "high"}}})
    assert nested.status_code == 422 and "metadata" in nested.json()["argument"]
    assert (reserved.status_code, reserved.json()["argument"]) == (422, "metadata.text")
    assert (bad_where.status_code, bad_where.json()["argument"]) == (422, "where.sev")
