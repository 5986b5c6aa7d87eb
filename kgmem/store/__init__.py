"""The store seam: the only package that imports the ``neo4j`` driver."""

from kgmem.store.catalogue import Catalogue, catalogue
from kgmem.store.driver import Store

__all__ = ["Catalogue", "Store", "catalogue"]
