"""A running ``kgmem serve`` for the HTTP tests: spawned as a user would run it, on a free
loopback port, with a token file of three tokens (two owners and one set of conversations)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from kgmem.config import Settings
from kgmem.service import Grant, new_token


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Served:
    """The server's URL, its tokens and the tenants they reach."""

    url: str
    tag: str
    tokens: dict[str, str] = field(default_factory=dict)  # name -> token
    owners: dict[str, str] = field(default_factory=dict)  # name -> owner id
    conversations: dict[str, str] = field(default_factory=dict)  # name -> conversation id
    log: Path | None = None

    def client(self, name: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.tokens[name]}"} if name else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=120)


def spawn(settings: Settings, tmp: Path) -> Iterator[Served]:
    """Start ``kgmem serve`` with tokens ``a`` (owner A), ``b`` (owner B) and ``c`` (the
    conversations ``c`` and ``c2``); yield it; stop it with SIGTERM."""
    tag = uuid.uuid4().hex[:8]
    served = Served(url="", tag=tag)
    served.owners = {"a": f"it-http-a-{tag}", "b": f"it-http-b-{tag}"}
    served.conversations = {
        "a": f"it-http-a-{tag}-1",
        "b": f"it-http-b-{tag}-1",
        "c": f"it-http-c-{tag}",
        "c2": f"it-http-c2-{tag}",
    }
    table: dict[str, object] = {}
    for name, grant in (
        ("a", Grant(owner=served.owners["a"])),
        ("b", Grant(owner=served.owners["b"])),
        (
            "c",
            Grant(conversations=frozenset({served.conversations["c"], served.conversations["c2"]})),
        ),
    ):
        token, entry = new_token(grant)
        served.tokens[name] = token
        table |= entry
    tokens_file = tmp / "tokens.json"
    tokens_file.write_text(json.dumps(table), encoding="utf-8")
    password = settings.resolved_password()
    assert password is not None
    env = os.environ | {
        "KGMEM_NEO4J_URI": settings.neo4j_uri,
        "KGMEM_NEO4J_PASSWORD": password,
        "KGMEM_HTTP_TOKENS_FILE": str(tokens_file),
    }
    port = free_port()
    served.url = f"http://127.0.0.1:{port}"
    served.log = tmp / "serve.log"
    kgmem = Path(sys.executable).with_name("kgmem")
    with served.log.open("wb") as log:
        server = subprocess.Popen(
            [str(kgmem), "serve", "--port", str(port)], env=env, stdout=log, stderr=log
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{served.url}/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None, served.log.read_text(encoding="utf-8")[-2000:]
            assert time.monotonic() < deadline, "kgmem serve did not answer in 120 s"
            time.sleep(0.5)
        yield served
    finally:
        server.terminate()
        server.wait(timeout=60)
