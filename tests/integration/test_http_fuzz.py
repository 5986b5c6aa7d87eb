"""The HTTP API under a property-based fuzzer driven by its own OpenAPI document
(schemathesis): no generated request may get a 500, and every error is a typed `ErrorOut`.

A bounded budget per operation (``KGMEM_FUZZ_EXAMPLES``, default 8) keeps CI short; set it
higher for a long run (docs/http.md gives the figures of one). The requests carry an owner's
token, so generated writes land in that owner's conversations, forgotten afterwards.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from tests.integration.http_server import Served

EXAMPLES = int(os.environ.get("KGMEM_FUZZ_EXAMPLES", "8"))


@pytest.fixture(scope="module")
def fuzz_server(http_served: Served) -> Served:
    """The shared ``kgmem serve`` (conftest ``http_served``; its owners' conversations are
    forgotten at the end of the session)."""
    return http_served


@pytest.fixture(scope="module")
def operations(fuzz_server: Served) -> dict[str, Any]:
    """The API's operations by path, from the OpenAPI document the running server serves."""
    api = schemathesis.openapi.from_url(f"{fuzz_server.url}/openapi.json")
    ops = [result.ok() for result in api.get_all_operations()]
    return {op.path: op for op in ops}


PATHS = [
    "/health",
    "/turns",
    "/documents",
    "/search",
    "/current",
    "/history",
    "/profile",
    "/timeline",
    "/forget/turns",
    "/forget/about",
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_server_error_on_any_generated_request(
    operations: dict[str, Any], fuzz_server: Served, path: str, mode: GenerationMode
) -> None:
    """Valid (positive) and invalid (negative) requests generated from the schema of one
    operation: never a 5xx, and every error a typed body."""
    if path == "/health" and mode is GenerationMode.NEGATIVE:
        pytest.skip("GET /health takes no input to get wrong")
    operation = operations[path]
    auth = {"Authorization": f"Bearer {fuzz_server.tokens['a']}"}

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        response = case.call(base_url=fuzz_server.url, headers=auth, timeout=120)
        assert response.status_code < 500, (case.body, response.text)
        if response.status_code >= 400:
            body = response.json()
            assert body.get("error") and body.get("message"), (response.status_code, body)

    check()
