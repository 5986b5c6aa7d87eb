"""Loaders: files in the layouts kgmem reads (its generic chat format, LoCoMo, BEAM, numbered
fact lists, documents) parsed into `kgmem.models` records; no store, no extraction."""
