"""The query catalogue: every Cypher statement kgmem runs, one per ``.cypher`` file.

Statements live in the repository's top-level ``cypher/`` folder (``schema/``, ``write/``,
``read/``, ``browser/``) so that a person can paste them into Neo4j Browser. A statement is
named ``<folder>/<file stem>``, e.g. ``read/search_turns_exact``. Every value is a ``$param``.

Files may start with ``//`` comment lines (a description and, for Browser use, ``:param``
examples as comments); comments are kept, since Cypher accepts them.
"""

from __future__ import annotations

import hashlib
import importlib.resources
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from kgmem.errors import QueryNotFound

__all__ = ["Catalogue", "catalogue", "cypher_root"]


def cypher_root() -> Path:
    """The folder holding the ``.cypher`` files.

    In a wheel the folder is packaged as ``kgmem/_cypher``; in a source checkout (including an
    editable install) it is the repository's top-level ``cypher/``.
    """
    packaged = importlib.resources.files("kgmem") / "_cypher"
    if packaged.is_dir():
        return Path(str(packaged))
    here = Path(__file__).resolve().parents[2] / "cypher"
    if here.is_dir():
        return here
    raise QueryNotFound("cypher/")  # pragma: no cover - broken install


class Catalogue:
    """Named Cypher statements loaded from a folder.

    Args:
        root: the folder with ``<group>/<name>.cypher`` files.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache: dict[str, str] = {}

    def __getitem__(self, name: str) -> str:
        """The text of statement ``name`` (``folder/stem``). Raises `QueryNotFound`."""
        text = self._cache.get(name)
        if text is None:
            if ".." in name or name.startswith("/"):
                raise QueryNotFound(name)
            path = self.root / f"{name}.cypher"
            if not path.is_file():
                raise QueryNotFound(name)
            text = path.read_text(encoding="utf-8").strip().rstrip(";")
            self._cache[name] = text
        return text

    def filled(self, name: str, slot: str, text: str) -> str:
        """The name of statement ``name`` with the comment ``slot`` (e.g. ``/*where*/``)
        replaced by ``text``, runnable by that name like any statement (both stores look
        statements up here). Only for text built from checked identifiers and ``$params``
        (`kgmem.metadata`: the declared metadata keys); values stay parameters.

        Raises:
            QueryNotFound: no statement ``name``, or it has no ``slot``.
        """
        base = self[name]
        if slot not in base:
            raise QueryNotFound(f"{name} (no {slot})")
        key = f"{name}#{hashlib.blake2b(text.encode('utf-8'), digest_size=8).hexdigest()}"
        if key not in self._cache:
            self._cache[key] = base.replace(slot, text)
        return key

    def names(self, group: str | None = None) -> Iterator[str]:
        """All statement names, sorted, optionally only those of one folder."""
        for path in sorted(self.root.rglob("*.cypher")):
            name = path.relative_to(self.root).with_suffix("").as_posix()
            if group is None or name.startswith(f"{group}/"):
                yield name


@lru_cache(maxsize=1)
def catalogue() -> Catalogue:
    """The process-wide catalogue over `cypher_root`."""
    return Catalogue(cypher_root())
