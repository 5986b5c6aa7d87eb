"""The client side of ``read/linked_read``: datetimes come back as ISO 8601 strings."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kgmem.retrieve.generators import _parse_datetimes


def test_iso_strings_become_aware_datetimes_and_zone_ids_keep_their_offset() -> None:
    row: dict[str, Any] = {
        "seeds": [{"observed_at": "2023-05-08T13:56:00Z", "event_time": None}],
        "expanded": [{"observed_at": "2023-05-08T13:56:00.123456Z"}],
        "citing": [{"event_time": "2023-05-01T00:00:00Z", "event_end": "2023-05-02T00:00:00Z"}],
        "keyed": [{"valid_from": "2025-05-01T10:00:00Z[UTC]"}],
        "turns": [{"observed_at": "2025-05-01T12:00:00+02:00[Europe/Berlin]"}],
    }
    _parse_datetimes(row)
    assert row["seeds"][0] == {
        "observed_at": datetime(2023, 5, 8, 13, 56, tzinfo=UTC),
        "event_time": None,
    }
    assert row["expanded"][0]["observed_at"].microsecond == 123456
    assert row["citing"][0]["event_end"] == datetime(2023, 5, 2, tzinfo=UTC)
    assert row["keyed"][0]["valid_from"] == datetime(2025, 5, 1, 10, tzinfo=UTC)
    assert row["turns"][0]["observed_at"] == datetime(2025, 5, 1, 10, tzinfo=UTC)
