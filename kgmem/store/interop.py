"""The driver-level objects that a framework adapter must hand to its framework (today only
neo4j-graphrag, whose ``Retriever`` takes a ``neo4j.Driver`` and returns ``neo4j.Record`` s).

Kept here because only `kgmem.store` imports the driver (house rule); adapters call these
functions and never import ``neo4j`` themselves.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import neo4j

from kgmem.store.driver import Store

__all__ = ["driver_of", "records"]


def driver_of(store: Store) -> neo4j.Driver:
    """The ``neo4j.Driver`` that ``store`` owns (closed by ``store.close()``, not by the caller)."""
    driver: neo4j.Driver = store._driver
    return driver


def records(rows: Iterable[Mapping[str, Any]]) -> list[neo4j.Record]:
    """Plain dict rows as ``neo4j.Record`` s (keys in the dicts' order)."""
    return [neo4j.Record(dict(row)) for row in rows]  # type: ignore[no-untyped-call]
