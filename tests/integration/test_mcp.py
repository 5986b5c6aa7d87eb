"""The MCP server against a real Neo4j, driven by the SDK's own client.

In-process (``mcp.Client(server)``) for the tool contracts, and once over stdio by spawning
``kgmem mcp`` as an agent's MCP client configuration would.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kgmem.api import Memory
from kgmem.config import Settings
from kgmem.mcp import build_server

ROOT = Path(__file__).resolve().parents[2]


def _call(server: Any, name: str, arguments: dict[str, Any]) -> Any:
    async def main() -> Any:
        async with Client(server) as client:
            return await client.call_tool(name, arguments)

    return anyio.run(main)


def test_lists_three_small_tools(memory: Memory, conversation: str) -> None:
    server = build_server(memory, conversation)

    async def main() -> Any:
        async with Client(server) as client:
            return await client.list_tools()

    tools = {tool.name: tool for tool in anyio.run(main).tools}
    assert set(tools) == {"search_memory", "read_turns", "current_value"}
    assert set(tools["search_memory"].input_schema["properties"]) == {"query"}
    assert set(tools["read_turns"].input_schema["properties"]) == {"turn_id", "window"}
    assert set(tools["current_value"].input_schema["properties"]) == {"entity", "relation"}


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
        if key.startswith(("KGMEM_", "HF_", "TRANSFORMERS_"))
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
            return await client.call_tool("search_memory", {"query": "Who ran the half marathon?"})

    result = anyio.run(main)
    assert not result.is_error
    ids = [hit["turn_id"] for hit in result.structured_content["hits"]]
    assert f"{conversation}:S1:3" in ids


def test_streamable_http_transport(settings: Settings, conversation: str) -> None:
    """`kgmem mcp --http --port P` answers the SDK's streamable-HTTP client on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    password = settings.resolved_password()
    assert password is not None
    env = os.environ | {"KGMEM_NEO4J_URI": settings.neo4j_uri, "KGMEM_NEO4J_PASSWORD": password}
    kgmem = Path(sys.executable).with_name("kgmem")
    server = subprocess.Popen(
        [str(kgmem), "mcp", "--conversation", conversation, "--http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, "kgmem mcp --http exited early"
            time.sleep(0.5)

        async def main() -> Any:
            async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=120) as client:
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
