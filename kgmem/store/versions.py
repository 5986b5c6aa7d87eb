"""The pinned versions of the local server: Neo4j, its Browser, and the Java it needs.

Re-exported by `kgmem.store.server`; a unit test keeps `NEO4J_VERSION` equal to the pins of
``docker/local/pom.xml`` and ``docker/compose.yaml``.
"""

from __future__ import annotations

__all__ = ["BROWSER_VERSION", "JAVA_MIN", "NEO4J_VERSION"]

NEO4J_VERSION = "2026.08.1"
"""The one pinned server version (newest ``org.neo4j:neo4j`` on Maven Central on 2026-11-30).

Must match ``neo4j.version`` in docker/local/pom.xml and the image tag in docker/compose.yaml
(a unit test checks all three). The 2026 line brings Cypher 25's ``SEARCH`` clause: vector
search filtered by tenant inside the index (GA in 2026.02, Community included)."""
BROWSER_VERSION = "5.24.0"
"""Newest ``org.neo4j.client:neo4j-browser`` on Maven Central (2026-11-30)."""
JAVA_MIN = 21
"""Neo4j 2025.01+ runs on Java 21 or newer."""
