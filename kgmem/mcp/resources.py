"""MCP resources and prompts, for clients that show them (`kgmem.mcp.build_server`
registers them beside the tools).

- resource ``kgmem://timeline``: what memory holds, as ``timeline`` answers (JSON);
- resource template ``kgmem://profile/{entity}``: an entity's current attribute values, as
  ``profile`` answers (JSON);
- prompt ``with_memory(task)``: the task preceded by what memory holds about the user now
  (each current value with the turn that says it) and the user's turns that bear on the task,
  each with its turn id, so the model starts from memory and cites it. kgmem keeps no separate
  kind of memory for standing instructions yet: the user's instructions reach the prompt as
  the user's turns the task's search returns.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from kgmem.mcp.tools import Tools

__all__ = ["register"]


def register(server: MCPServer, tools: Tools) -> None:
    """Add the resources and the prompt of ``tools``' scope to ``server``."""

    @server.resource(
        "kgmem://timeline",
        name="timeline",
        description="Sessions and documents in memory with dates and turn counts (JSON).",
        mime_type="application/json",
    )
    async def timeline() -> str:
        return (await tools.timeline()).model_dump_json()

    @server.resource(
        "kgmem://profile/{entity}",
        name="profile",
        description="What memory holds about a person or thing now: each attribute's current "
        "value with the turns that say it (JSON).",
        mime_type="application/json",
    )
    async def profile(entity: str) -> str:
        return (await tools.profile(entity)).model_dump_json()

    @server.prompt(
        name="with_memory",
        description="A task preceded by the user's current values and the user's turns that "
        "bear on it, from memory, with turn ids to cite.",
    )
    async def with_memory(task: str) -> str:
        return await _with_memory(tools, task)


async def _with_memory(tools: Tools, task: str) -> str:
    values = (await tools.profile("user")).values
    found: Any = await tools.search_memory(task, k=5, speaker="user")
    if not found.hits:  # no speaker named "user" (a named chat): the task's turns of anyone
        found = await tools.search_memory(task, k=5)
    lines = ["What memory holds about the user now (cite the turn ids):"]
    lines += [
        f"- {v.attribute}: {v.value} [{', '.join(v.cites) or 'no turn'}]" for v in values
    ] or ["- nothing yet"]
    lines.append("")
    lines.append("What the user said that bears on the task (their instructions included):")
    lines += [f"- [{h.turn_id}] ({h.date}, {h.speaker}) {h.text}" for h in found.hits] or [
        "- nothing in memory"
    ]
    lines += ["", "Follow the user's standing instructions above.", "", f"Task: {task}"]
    return "\n".join(lines)
