"""The pinned Neo4j version is named once in code and agrees everywhere it must appear;
Java discovery refuses a runtime that is too old, with a message that says what is needed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kgmem.errors import ServerError
from kgmem.store.java import find_java
from kgmem.store.server import JAVA_MIN, java_major
from kgmem.store.tenant import tenant_query, tenant_token
from kgmem.store.versions import NEO4J_VERSION

ROOT = Path(__file__).resolve().parents[2]


def test_pom_compose_and_launcher_pin_the_same_server() -> None:
    pom = (ROOT / "docker" / "local" / "pom.xml").read_text(encoding="utf-8")
    assert f"<neo4j.version>{NEO4J_VERSION}</neo4j.version>" in pom
    compose = (ROOT / "docker" / "compose.yaml").read_text(encoding="utf-8")
    assert re.search(rf"image: neo4j:{re.escape(NEO4J_VERSION)}-community\b", compose)
    assert NEO4J_VERSION.startswith("2026.")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert NEO4J_VERSION in readme


def _fake_jdk(home: Path, version: str) -> Path:
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text("#!/bin/sh\nexit 0\n")
    java.chmod(0o755)
    (home / "release").write_text(f'JAVA_VERSION="{version}"\n')
    return home


def test_java_major_reads_release_files(tmp_path: Path) -> None:
    assert java_major(_fake_jdk(tmp_path / "a", "25.0.3")) == 25
    assert java_major(_fake_jdk(tmp_path / "b", "17.0.15")) == 17
    assert java_major(_fake_jdk(tmp_path / "c", "1.8.0_412")) == 8
    assert java_major(tmp_path / "missing") is None


def test_explicit_java_home_too_old_is_refused_with_what_is_needed(tmp_path: Path) -> None:
    old = _fake_jdk(tmp_path / "jdk17", "17.0.15")
    with pytest.raises(ServerError, match=rf"needs Java {JAVA_MIN} or newer.*Java 17"):
        find_java(old)
    new = _fake_jdk(tmp_path / "jdk21", "21.0.4")
    found = find_java(new)
    assert (found.home, found.major) == (new, 21)


def test_tenant_token_is_one_stable_unsplittable_number() -> None:
    token = tenant_token("conv-26")
    assert token.isdigit() and token == tenant_token("conv-26")
    assert token != tenant_token("conv-26 ") and token != tenant_token("conv-2")
    assert tenant_token("odd \udcff `quote' \"").isdigit()  # lone surrogates, quotes: fine


def test_tenant_query_filters_without_scoring_and_escapes_words() -> None:
    query = tenant_query("c1", ["support", 'a"b', "x:y"])
    assert query == f'+tk:{tenant_token("c1")}^0 +text:(support a\\"b x\\:y)'
    assert tenant_query("c1", []) is None
