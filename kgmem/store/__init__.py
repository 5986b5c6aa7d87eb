"""The store seam: the only package that imports the ``neo4j`` driver."""

from kgmem.store.catalogue import Catalogue, catalogue
from kgmem.store.driver import Store, Transaction

__all__ = ["Catalogue", "Store", "Transaction", "catalogue"]
