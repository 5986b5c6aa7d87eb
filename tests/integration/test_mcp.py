"""The MCP server against a real Neo4j, driven by the SDK's own client.

In-process (``mcp.Client(server)``) for the tool contracts, once over stdio by spawning
``kgmem mcp`` as an agent's MCP client configuration would, and over streamable HTTP with and
without the bearer token (``KGMEM_MCP_TOKEN``).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.errors import ConfigError, ConversationNotFound, MalformedInput
from kgmem.mcp import build_server, default_thread, is_loopback, serve

ROOT = Path(__file__).resolve().parents[2]


def _call(server: Any, name: str, arguments: dict[str, Any]) -> Any:
    async def main() -> Any:
        async with Client(server) as client:
            return await client.call_tool(name, arguments)

    return anyio.run(main)


def test_lists_small_tools(memory: Memory, conversation: str) -> None:
    server = build_server(memory, conversation)

    async def main() -> Any:
        async with Client(server) as client:
            return await client.list_tools()

    tools = {tool.name: tool for tool in anyio.run(main).tools}
    expected = {"search_memory", "timeline", "read_turns", "current_value", "profile", "remember"}
    expected.add("instructions")  # a conversation server: the user's standing instructions
    if hasattr(memory, "forget_turns"):  # turn-level forgetting, where the Memory has it
        expected |= {"forget_turns", "forget_about"}
        assert set(tools["forget_turns"].input_schema["properties"]) == {"turn_ids"}
        assert set(tools["forget_about"].input_schema["properties"]) == {"description"}
    assert set(tools) == expected
    # one required parameter, and these optional ones, each documented with its range
    # (agents do worse with wide search schemas: nothing beyond these)
    assert set(tools["search_memory"].input_schema["properties"]) == {
        "query",
        "k",
        "cursor",
        "exact",
        "speaker",
        "since",
        "until",
        "session",
        "max_tokens",
        "where",
    }
    assert "1-50" in (tools["search_memory"].description or "")
    assert tools["search_memory"].input_schema["required"] == ["query"]
    assert set(tools["timeline"].input_schema.get("properties", {})) == set()
    assert set(tools["read_turns"].input_schema["properties"]) == {"turn_id", "window"}
    assert set(tools["current_value"].input_schema["properties"]) == {"entity", "relation"}
    assert set(tools["profile"].input_schema["properties"]) == {"entity"}
    assert set(tools["remember"].input_schema["properties"]) == {"text", "speaker", "metadata"}
    assert tools["remember"].input_schema["required"] == ["text"]
    assert set(tools["instructions"].input_schema["properties"]) == {"request"}


def test_instructions_tool_and_search_fields(memory: Memory) -> None:
    """A standing instruction said in the chat comes back from the instructions tool and
    beside search_memory's hits, with its turn and date."""
    fresh = f"it-mcp-instr-{uuid.uuid4().hex[:8]}"
    memory.add_turns(
        fresh,
        [
            {"id": "a1", "speaker": "user", "text": "Always format code with syntax highlighting."},
            {"id": "a2", "speaker": "assistant", "text": "Sure, fenced blocks from now on."},
            {"id": "a3", "speaker": "user", "text": "I started pottery classes on Tuesdays."},
        ],
    )
    server = build_server(memory, fresh, k=3)
    try:
        every = _call(server, "instructions", {}).structured_content
        assert [i["turn_id"] for i in every["instructions"]] == [f"{fresh}:a1"]
        assert every["instructions"][0]["kind"] == "instruction"
        asked = {"request": "Show me the code for the export function"}
        applies = _call(server, "instructions", asked).structured_content
        assert applies["instructions"][0]["valid_from"].startswith("20")
        found = _call(server, "search_memory", {"query": "write the export code"})
        assert [i["turn_id"] for i in found.structured_content["instructions"]] == [f"{fresh}:a1"]
    finally:
        memory.forget(fresh)


def test_forget_about_removes_by_description_and_returns_no_text(memory: Memory) -> None:
    """forget_about matches like an in-conversation request (the user's turns, values copied
    verbatim by any speaker) and answers with ids and counts only; remember never deletes."""
    fresh = f"it-mcp-forget-{uuid.uuid4().hex[:8]}"
    memory.add_turns(
        fresh,
        [
            {"id": "a1", "speaker": "user", "text": "My passport number is C7H-448-219."},
            {"id": "a2", "speaker": "assistant", "text": "Got it, C7H-448-219."},
            {"id": "a3", "speaker": "user", "text": "I started pottery classes on Tuesdays."},
        ],
    )
    server = build_server(memory, fresh, k=3)

    async def main() -> list[Any]:
        async with Client(server) as client:
            kept = await client.call_tool("remember", {"text": "Please forget my pottery class."})
            nothing = await client.call_tool("forget_about", {"description": "my landlord"})
            gone = await client.call_tool("forget_about", {"description": "my passport number"})
            return [kept, nothing, gone]

    try:
        kept, nothing, gone = anyio.run(main)
        assert not kept.is_error
        assert nothing.structured_content["status"] == "no_match"
        assert nothing.structured_content["turn_ids"] == []
        out = gone.structured_content
        assert out["status"] == "applied" and out["turns"] == 2
        assert out["turn_ids"] == [f"{fresh}:a1", f"{fresh}:a2"]
        assert "448" not in str(out)
        ids = {r["id"] for r in memory.store.read("read/conversation_turns", conversation_id=fresh)}
        assert f"{fresh}:a3" in ids and len(ids) == 2  # pottery and the remembered turn stay
    finally:
        memory.forget(fresh)


def test_remember_fills_an_empty_conversation(memory: Memory) -> None:
    """A server on a conversation with no turns starts, searches (nothing, no error), and
    remembers through the full write path; the new turn is then found and readable."""
    fresh = f"it-mcp-empty-{uuid.uuid4().hex[:8]}"
    server = build_server(memory, fresh, k=3)

    async def main() -> list[Any]:
        async with Client(server) as client:
            empty = await client.call_tool("search_memory", {"query": "Where does Ana live?"})
            stored = await client.call_tool(
                "remember", {"text": "I moved to Lisbon last week.", "speaker": "Ana"}
            )
            default = await client.call_tool("remember", {"text": "Buy oat milk on Friday."})
            found = await client.call_tool("search_memory", {"query": "Where does Ana live?"})
            return [empty, stored, default, found]

    try:
        empty, stored, default, found = anyio.run(main)
        assert not empty.is_error and empty.structured_content["hits"] == []
        assert empty.structured_content["answerable"] is False
        turn = stored.structured_content["turn"]
        assert turn["turn_id"].startswith(f"{fresh}:") and turn["speaker"] == "Ana"
        assert stored.structured_content["facts"] >= 1  # the extractor ran on it
        assert default.structured_content["turn"]["speaker"] == "user"
        hits = found.structured_content["hits"]
        assert hits[0]["turn_id"] == turn["turn_id"] and "Lisbon" in hits[0]["text"]
        window = _call(server, "read_turns", {"turn_id": turn["turn_id"], "window": 1})
        assert window.structured_content["turns"][0]["text"] == ("I moved to Lisbon last week.")
        assert _call(server, "remember", {"text": "   "}).is_error  # typed error, nothing stored
        assert memory.counts(fresh)["turns"] == 2
    finally:
        memory.forget(fresh)


def test_http_refuses_non_loopback_without_token(settings: Settings) -> None:
    """Checked before anything connects or binds: no server needed, nothing listens."""
    open_settings = settings.model_copy(update={"mcp_token": None})
    with pytest.raises(ConfigError, match="KGMEM_MCP_TOKEN"):
        serve(open_settings, "any", http=True, host="0.0.0.0", port=1)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("10.1.2.3")


def test_search_memory_returns_citable_turns(memory: Memory, conversation: str) -> None:
    server = build_server(memory, conversation, k=3)
    result = _call(server, "search_memory", {"query": "Where did Ana move to?"})
    assert not result.is_error
    out = result.structured_content
    assert out["conversation_id"] == conversation
    assert len(out["hits"]) == 3
    for hit in out["hits"]:
        assert hit["turn_id"].startswith(f"{conversation}:")
        assert len(hit["date"]) == 10 and hit["date"][:4] == "2024"
    assert f"{conversation}:S2:1" in [h["turn_id"] for h in out["hits"]]  # "I moved to Lisbon"
    assert "Lisbon" in result.content[0].text  # unstructured copy for clients without schemas


def test_read_turns_follows_next(memory: Memory, conversation: str) -> None:
    server = build_server(memory, conversation)
    result = _call(server, "read_turns", {"turn_id": f"{conversation}:S1:3", "window": 1})
    turns = result.structured_content["turns"]
    assert [t["turn_id"].rsplit(":", 2)[-2:] for t in turns] == [
        ["S1", "2"],
        ["S1", "3"],
        ["S1", "4"],
    ]
    assert [t["offset"] for t in turns] == [-1, 0, 1]
    # across the session boundary: S1:5 is followed by S2:1
    edge = _call(server, "read_turns", {"turn_id": f"{conversation}:S1:5", "window": 1})
    assert [t["turn_id"] for t in edge.structured_content["turns"]][-1] == f"{conversation}:S2:1"


def test_read_turns_is_scoped_to_its_conversation(memory: Memory, conversation: str) -> None:
    other = build_server(memory, f"{conversation}-other")
    result = _call(other, "read_turns", {"turn_id": f"{conversation}:S1:3", "window": 1})
    assert result.is_error
    assert "no turn" in result.content[0].text
    too_wide = _call(
        build_server(memory, conversation),
        "read_turns",
        {"turn_id": f"{conversation}:S1:3", "window": 50},
    )
    assert too_wide.is_error


def test_current_value_reports_latest_and_previous(memory: Memory, conversation: str) -> None:
    server = build_server(memory, conversation)
    found = _call(
        server, "current_value", {"entity": "Ana", "relation": "live_in"}
    ).structured_content
    rows = memory.history(conversation, "Ana", "live_in")
    assert found["found"] is bool(rows)
    if rows:  # the extractor's residence facts for Ana: the latest one wins, in code
        assert found["fact_id"] == rows[-1]["id"]
        assert found["cites"] == rows[-1]["cites"]
        assert len(found["previous"]) == len(rows) - 1
    missing = _call(
        server, "current_value", {"entity": "Nobody", "relation": "live_in"}
    ).structured_content
    assert missing["found"] is False and missing["value"] is None


def test_stdio_server_spawned_by_sdk_client(
    settings: Settings, memory: Memory, conversation: str
) -> None:
    """`kgmem mcp --conversation ID` over stdio, as an MCP client configuration launches it."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key.startswith(("KGMEM_", "HF_", "TRANSFORMERS_", "PYTHONPATH"))
    }
    env |= {"KGMEM_NEO4J_URI": settings.neo4j_uri, "KGMEM_DATA_DIR": str(settings.data_dir)}
    password = settings.resolved_password()
    assert password is not None
    env["KGMEM_NEO4J_PASSWORD"] = password
    env["KGMEM_MCP_CONVERSATION"] = conversation
    kgmem = Path(sys.executable).with_name("kgmem")  # the console script installed beside python
    params = StdioServerParameters(command=str(kgmem), args=["mcp"], env=env, cwd=str(ROOT))

    async def main() -> Any:
        async with Client(params, read_timeout_seconds=120) as client:
            resources = await client.list_resources()
            assert "kgmem://timeline" in {str(r.uri) for r in resources.resources}
            prompts = await client.list_prompts()
            assert [p.name for p in prompts.prompts] == ["with_memory"]
            return await client.call_tool("search_memory", {"query": "Who ran the half marathon?"})

    result = anyio.run(main)
    assert not result.is_error
    ids = [hit["turn_id"] for hit in result.structured_content["hits"]]
    assert f"{conversation}:S1:3" in ids


def _spawn_http(settings: Settings, conversation: str, port: int, token: str | None) -> Any:
    password = settings.resolved_password()
    assert password is not None
    env = os.environ | {"KGMEM_NEO4J_URI": settings.neo4j_uri, "KGMEM_NEO4J_PASSWORD": password}
    env.pop("KGMEM_MCP_TOKEN", None)
    if token is not None:
        env["KGMEM_MCP_TOKEN"] = token
    kgmem = Path(sys.executable).with_name("kgmem")
    server = subprocess.Popen(
        [str(kgmem), "mcp", "--conversation", conversation, "--http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return server
        assert server.poll() is None, "kgmem mcp --http exited early"
        time.sleep(0.5)
    server.terminate()
    raise AssertionError("kgmem mcp --http did not listen in 90 s")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_streamable_http_transport(settings: Settings, conversation: str) -> None:
    """`kgmem mcp --http --port P` answers the SDK's streamable-HTTP client on loopback."""
    port = _free_port()
    server = _spawn_http(settings, conversation, port, token=None)
    try:

        async def main() -> Any:
            async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=120) as client:
                timeline = await client.read_resource("kgmem://timeline")
                assert conversation in timeline.contents[0].text  # type: ignore[union-attr]
                return await client.call_tool(
                    "read_turns", {"turn_id": f"{conversation}:S2:1", "window": 0}
                )

        result = anyio.run(main)
        assert [t["turn_id"] for t in result.structured_content["turns"]] == [
            f"{conversation}:S2:1"
        ]
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_http_bearer_token_and_write_on_empty_conversation(
    settings: Settings, memory: Memory
) -> None:
    """With KGMEM_MCP_TOKEN set, every HTTP request needs it (401 otherwise); the SDK client
    with the token remembers into a conversation that held nothing when the server started."""
    token = uuid.uuid4().hex
    fresh = f"it-mcp-http-{uuid.uuid4().hex[:8]}"
    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = _spawn_http(settings, fresh, port, token=token)
    try:

        async def main() -> Any:
            async with httpx2.AsyncClient() as raw:
                body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
                headers = {"Accept": "application/json, text/event-stream"}
                missing = await raw.post(url, json=body, headers=headers)
                wrong = await raw.post(
                    url, json=body, headers=headers | {"Authorization": "Bearer nope"}
                )
            authed = httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=300)
            )
            async with (
                authed,
                Client(
                    streamable_http_client(url, http_client=authed), read_timeout_seconds=120
                ) as client,
            ):
                stored = await client.call_tool(
                    "remember", {"text": "Ben adopted a greyhound named Pixel.", "speaker": "Ben"}
                )
                found = await client.call_tool("search_memory", {"query": "What is Ben's dog?"})
            return missing.status_code, wrong.status_code, stored, found

        missing, wrong, stored, found = anyio.run(main)
        assert (missing, wrong) == (401, 401)
        assert not stored.is_error, stored.content
        turn_id = stored.structured_content["turn"]["turn_id"]
        assert [h["turn_id"] for h in found.structured_content["hits"]] == [turn_id]
    finally:
        server.terminate()
        server.wait(timeout=30)
        if memory.counts(fresh)["turns"]:
            memory.forget(fresh)


def test_an_owner_server_spans_the_owners_threads(memory: Memory) -> None:
    """Every tool of an owner server, through the SDK client, with good and bad input: one
    search over both threads with speaker and date filters, the timeline of both, reads and
    forgets only of the owner's turns, remember into the owner's default thread."""
    run = uuid.uuid4().hex[:8]
    owner, other = f"it-mcp-owner-{run}", f"it-mcp-other-{run}"
    may, june = datetime(2024, 5, 3, tzinfo=UTC), datetime(2024, 6, 9, tzinfo=UTC)
    memory.add_turns(
        f"{owner}-a",
        [
            {"id": "a1", "speaker": "user", "text": "I moved to Lisbon in May."},
            {"id": "a2", "speaker": "assistant", "text": "Lisbon has lovely trams."},
        ],
        observed_at=may,
        owner=owner,
    )
    memory.add_turns(
        f"{owner}-b",
        [{"id": "b1", "speaker": "user", "text": "My passport number is Q55-781-002."}],
        observed_at=june,
        owner=owner,
    )
    memory.add_turns(
        f"{other}-a", [{"speaker": "user", "text": "I moved to Lisbon too."}], owner=other
    )
    server = build_server(memory, owner=owner, k=5)

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(server) as client:
            call = client.call_tool
            out["all"] = await call("search_memory", {"query": "Lisbon passport trams"})
            out["speaker"] = await call(
                "search_memory", {"query": "Lisbon", "speaker": "assistant"}
            )
            out["since"] = await call("search_memory", {"query": "Lisbon", "since": "2024-06-01"})
            out["until"] = await call("search_memory", {"query": "Lisbon", "until": "2024-05-03"})
            out["bad_date"] = await call("search_memory", {"query": "x", "since": "last May"})
            out["bad_range"] = await call(
                "search_memory", {"query": "x", "since": "2024-07-01", "until": "2024-01-01"}
            )
            out["timeline"] = await call("timeline", {})
            out["read"] = await call("read_turns", {"turn_id": f"{owner}-a:a1", "window": 1})
            out["read_foreign"] = await call("read_turns", {"turn_id": f"{other}-a:t0"})
            out["read_local"] = await call("read_turns", {"turn_id": "a1"})
            out["current"] = await call("current_value", {"entity": "user", "relation": "live_in"})
            out["profile"] = await call("profile", {"entity": "user"})
            out["profile_expected"] = memory.profile(None, "user", owner=owner)
            out["profile_none"] = await call("profile", {"entity": "Nobody at all"})
            out["remember"] = await call("remember", {"text": "I adopted a cat named Miso."})
            out["forget_foreign"] = await call("forget_turns", {"turn_ids": [f"{other}-a:t0"]})
            out["forget_about"] = await call("forget_about", {"description": "my passport number"})
            out["forget"] = await call("forget_turns", {"turn_ids": [f"{owner}-a:a2"]})
        return out

    try:
        out = anyio.run(main)
        hits = out["all"].structured_content["hits"]
        assert {h["conversation_id"] for h in hits} == {f"{owner}-a", f"{owner}-b"}
        assert out["all"].structured_content["owner"] == owner
        assert [h["speaker"] for h in out["speaker"].structured_content["hits"]] == ["assistant"]
        assert {h["turn_id"] for h in out["since"].structured_content["hits"]} == {f"{owner}-b:b1"}
        assert {h["conversation_id"] for h in out["until"].structured_content["hits"]} == {
            f"{owner}-a"
        }
        assert out["bad_date"].is_error and "ISO 8601" in out["bad_date"].content[0].text
        assert out["bad_range"].is_error
        entries = out["timeline"].structured_content["entries"]
        assert [(e["conversation_id"], e["turns"]) for e in entries] == [
            (f"{owner}-a", 2),
            (f"{owner}-b", 1),
        ]
        assert entries[0]["first"] == "2024-05-03" and entries[0]["kind"] == "session"
        assert [t["turn_id"] for t in out["read"].structured_content["turns"]] == [
            f"{owner}-a:a1",
            f"{owner}-a:a2",
        ]
        assert out["read_foreign"].is_error and out["read_local"].is_error
        assert not out["current"].is_error
        profile = out["profile"].structured_content
        expected = out["profile_expected"]
        assert profile["found"] is bool(expected) and expected  # the passport number, at least
        assert sorted(
            (v["attribute"], v["value"], tuple(v["cites"])) for v in profile["values"]
        ) == (
            sorted((a, r["value"], tuple(r["cites"])) for a, rows in expected.items() for r in rows)
        )
        assert {v["conversation_id"] for v in profile["values"]} <= {f"{owner}-a", f"{owner}-b"}
        assert all(v["cites"] for v in profile["values"])
        none = out["profile_none"].structured_content
        assert none["found"] is False and none["values"] == []
        remembered = out["remember"].structured_content["turn"]["turn_id"]
        assert remembered.startswith(default_thread(owner) + ":")
        assert memory.owner_of(default_thread(owner)) == owner
        assert out["forget_foreign"].is_error
        assert memory.counts(f"{other}-a")["turns"] == 1
        assert out["forget_about"].structured_content["turn_ids"] == [f"{owner}-b:b1"]
        assert out["forget"].structured_content["removed"]["turns"] == 1
    finally:
        for who in (owner, other):
            with contextlib.suppress(ConversationNotFound):
                memory.forget_owner(who)


def test_a_server_needs_a_scope(memory: Memory) -> None:
    with pytest.raises(MalformedInput, match="conversation id or an owner"):
        build_server(memory)
    with pytest.raises(MalformedInput):
        build_server(memory, owner="")


def test_search_memory_pages_exact_and_folded_speaker(memory: Memory) -> None:
    """An agent pages with the cursor (no turn twice), asks for an exact identifier, names a
    speaker in another case and accents, and is told when a name is unknown or a cursor
    belongs to another search."""
    fresh = f"it-mcp-steer-{uuid.uuid4().hex[:8]}"
    turns = [{"speaker": "Zoë", "text": f"Reminder {i}: water the basil plants."} for i in range(7)]
    turns.append({"speaker": "Bo", "text": "The failing job prints ERR-CONN-2291 at startup."})
    memory.add_turns(fresh, turns)
    server = build_server(memory, fresh)

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(server) as client:
            call = client.call_tool
            first = await call("search_memory", {"query": "basil", "k": 4})
            out["first"] = first.structured_content
            out["second"] = (
                await call(
                    "search_memory",
                    {"query": "basil", "k": 4, "cursor": out["first"]["next_cursor"]},
                )
            ).structured_content
            out["mismatch"] = await call(
                "search_memory", {"query": "other", "cursor": out["first"]["next_cursor"]}
            )
            out["exact"] = (
                await call("search_memory", {"query": "job error", "exact": "err-conn-2291"})
            ).structured_content
            out["folded"] = (
                await call("search_memory", {"query": "basil", "speaker": "ZOE", "k": 2})
            ).structured_content
            out["unknown"] = (
                await call("search_memory", {"query": "basil", "speaker": "Nadia"})
            ).structured_content
            out["k0"] = await call("search_memory", {"query": "basil", "k": 0})
        return out

    try:
        out = anyio.run(main)
        ids = [h["turn_id"] for h in out["first"]["hits"] + out["second"]["hits"]]
        assert len(ids) == len(set(ids)) == 8  # two pages of 4, no turn twice
        assert out["mismatch"].is_error and "another search" in out["mismatch"].content[0].text
        assert [h["text"] for h in out["exact"]["hits"]] == [turns[-1]["text"]]
        assert {h["speaker"] for h in out["folded"]["hits"]} == {"Zoë"}
        assert all(h["why"] for h in out["folded"]["hits"])
        assert out["unknown"]["unknown_names"] == ["Nadia"] and out["unknown"]["hits"] == []
        assert set(out["unknown"]["speakers"]) == {"Zoë", "Bo"}
        assert out["k0"].is_error
    finally:
        memory.forget(fresh)


def test_resources_and_prompt(memory: Memory, conversation: str) -> None:
    """The timeline and an entity's profile as resources; the with_memory prompt puts the
    current values and the turns that bear on the task, with their ids, before the task."""
    server = build_server(memory, conversation)

    async def main() -> dict[str, Any]:
        async with Client(server) as client:
            templates = await client.list_resource_templates()
            timeline = await client.read_resource("kgmem://timeline")
            profile = await client.read_resource("kgmem://profile/Ana")
            prompt = await client.get_prompt("with_memory", {"task": "Plan Ana's next move"})
            return {
                "templates": [t.uri_template for t in templates.resource_templates],
                "timeline": json.loads(timeline.contents[0].text),  # type: ignore[union-attr]
                "profile": json.loads(profile.contents[0].text),  # type: ignore[union-attr]
                "prompt": prompt.messages[0].content.text,  # type: ignore[union-attr]
            }

    out = anyio.run(main)
    assert out["templates"] == ["kgmem://profile/{entity}"]
    assert out["timeline"]["entries"] and out["timeline"]["conversation_id"] == conversation
    expected = memory.profile(conversation, "Ana")
    assert out["profile"]["found"] is bool(expected)
    text = out["prompt"]
    assert text.rstrip().endswith("Task: Plan Ana's next move")
    assert f"[{conversation}:" in text  # the turns come with their ids, to cite


def test_remember_with_metadata_and_search_where(memory: Memory) -> None:
    """remember keeps metadata; search_memory filters on it and returns it (dates as
    YYYY-MM-DD); bad metadata or a bad filter is a tool error naming the key."""
    fresh = f"it-mcp-meta-{uuid.uuid4().hex[:8]}"
    server = build_server(memory, fresh, k=5)

    async def main() -> list[Any]:
        async with Client(server) as client:
            await client.call_tool(
                "remember",
                {"text": "The billing deploy failed twice.", "metadata": {"project": "billing"}},
            )
            await client.call_tool(
                "remember",
                {
                    "text": "The search deploy went fine.",
                    "metadata": {"project": "search", "due": "2024-05-01", "importance": 2},
                },
            )
            found = await client.call_tool(
                "search_memory", {"query": "deploy", "where": {"importance": {"gte": 2}}}
            )
            bad = await client.call_tool(
                "remember", {"text": "x", "metadata": {"tags": {"nested": 1}}}
            )
            bad_where = await client.call_tool(
                "search_memory", {"query": "deploy", "where": {"project": {"like": "b"}}}
            )
            return [found, bad, bad_where]

    try:
        found, bad, bad_where = anyio.run(main)
        hits = found.structured_content["hits"]
        assert [h["text"] for h in hits] == ["The search deploy went fine."]
        assert hits[0]["metadata"] == {"due": "2024-05-01", "importance": 2, "project": "search"}
        assert bad.is_error and "tags" in str(bad.content)
        assert bad_where.is_error and "project" in str(bad_where.content)
    finally:
        memory.forget(fresh)


def test_entity_names_match_without_case_or_accents(memory: Memory, conversation: str) -> None:
    """current / history / profile (and so current_value, profile and the profile resource)
    find an entity by its name in any case, with or without accents; ids stay exact."""
    profile = memory.profile(conversation, "Ana")
    assert profile, "the sample chat holds attributes of Ana"
    assert memory.profile(conversation, "  ÁNA ") == profile
    assert memory.history(conversation, "ána", "live_in") == memory.history(
        conversation, "Ana", "live_in"
    )
    assert memory.profile(conversation, "Anna") != profile
