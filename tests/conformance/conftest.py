"""``tests/conformance`` runs only under ``make conformance`` (`scripts/conformance.py` sets
``KGMEM_CONFORMANCE=1`` and installs langchain-tests and the other suites' dependencies into
``.conformance/site``); the default test run never collects it."""

from __future__ import annotations

import os

collect_ignore_glob = [] if os.environ.get("KGMEM_CONFORMANCE") else ["*.py"]
