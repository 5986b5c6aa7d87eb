"""Documents as sources without a server: reading and refusing files, sections and chunks,
content hashes and the re-ingest plan (`kgmem.ingest.loaders.documents`)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from kgmem.errors import DocumentRejected, MalformedInput
from kgmem.ingest.document_writes import plan_document
from kgmem.ingest.loaders.document_chunks import CHUNK_CHARS, chunk_markdown, chunk_text
from kgmem.ingest.loaders.documents import (
    MAX_DOCUMENT_BYTES,
    MAX_DOCUMENT_CHARS,
    MAX_PDF_BYTES,
    load_document,
)
from kgmem.turns import is_document_turn, turn_id


def tiny_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF: each page shows its text's lines in Helvetica."""
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(len(pages)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, text in enumerate(pages):
        shown = " ".join(f"({line}) Tj T*" for line in text.split("\n"))
        stream = f"BT /F1 12 Tf 72 720 Td 14 TL {shown} ET".encode()
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (5 + 2 * i)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


GUIDE = """Written for new staff.

# Team handbook

## Office
The office is in **Lisbon**, at [Rua Augusta 12](https://example.org/map).
Ana Costa manages it.

## Tools
### Laptops
- Everyone gets a laptop
- Spares:
  1. two in the cupboard
  2. one at the desk

| item | count |
|------|-------|
| desk | 12    |

```sh
make setup
```

## Empty heading
### Child
> Quoted policy text.
"""


def test_sections_carry_their_heading_trail_and_plain_text() -> None:
    chunks = chunk_markdown(GUIDE)
    assert [c.heading for c in chunks] == [
        "",
        "Team handbook > Office",
        "Team handbook > Tools > Laptops",
        "Team handbook > Empty heading > Child",
    ]
    assert chunks[0].text == "Written for new staff."
    # the section's heading opens its first chunk; inline markup and link targets are gone
    assert chunks[1].text == (
        "Office\nThe office is in Lisbon, at Rua Augusta 12. Ana Costa manages it."
    )
    laptops = chunks[2].text
    assert laptops.splitlines() == [
        "Laptops",
        "- Everyone gets a laptop",
        "- Spares:",
        "  1. two in the cupboard",
        "  2. one at the desk",
        "",
        "item | count",
        "desk | 12",
        "",
        "make setup",
    ]
    assert chunks[3].text == "Child\nQuoted policy text."
    assert all(len(c.digest) == 16 and c.occurrence == 1 for c in chunks)


def test_a_heading_without_text_of_its_own_makes_no_chunk() -> None:
    chunks = chunk_markdown("# A\n## B\n### C\nbody\n")
    assert [(c.heading, c.text) for c in chunks] == [("A > B > C", "C\nbody")]
    assert chunk_markdown("# Only\n## Headings\n") == []


def test_long_sections_split_into_chunks_of_at_most_the_limit() -> None:
    sentence = "The backup runs every night at two and keeps thirty days of copies. "
    body = sentence * 40  # about 2,700 characters in one paragraph
    chunks = chunk_markdown(f"# Backups\n{body}\n\nSecond paragraph.\n")
    assert len(chunks) >= 4
    heading = len("Backups\n")
    assert all(len(c.text) <= CHUNK_CHARS + heading for c in chunks)
    assert all(len(c.text) <= CHUNK_CHARS for c in chunks[1:])
    assert chunks[0].text.startswith("Backups\nThe backup runs")
    assert all(c.heading == "Backups" for c in chunks)
    joined = " ".join(c.text for c in chunks).replace("\n\n", " ")
    assert joined.count("The backup runs") == 40 and joined.endswith("Second paragraph.")
    # one word longer than a chunk is cut, never lost
    pieces = chunk_text("x" * (2 * CHUNK_CHARS + 5))
    assert [len(c.text) for c in pieces] == [CHUNK_CHARS, CHUNK_CHARS, 5]


def test_long_code_keeps_its_lines_across_chunks() -> None:
    lines = [f"step_{n:03d} = run(job, {n})" for n in range(100)]  # about 2,600 characters
    chunks = chunk_markdown("# Script\n```python\n" + "\n".join(lines) + "\n```\n")
    assert len(chunks) >= 4 and all(len(c.text) <= CHUNK_CHARS + 7 for c in chunks)
    kept = [line for c in chunks for line in c.text.splitlines()]
    assert kept == ["Script", *lines]


def test_front_matter_is_metadata_but_a_leading_rule_is_not() -> None:
    chunks = chunk_markdown("---\ntitle: Handbook\ntags: [hr]\n---\n# Office\nIn Lisbon.\n")
    assert [(c.heading, c.text) for c in chunks] == [("Office", "Office\nIn Lisbon.")]
    ruled = chunk_markdown("---\nJust a rule above.\n\nText.\n")
    assert [c.text for c in ruled] == ["Just a rule above.\n\nText."]


def test_small_paragraphs_pack_together_up_to_the_limit() -> None:
    paragraphs = [f"Paragraph number {n} of the notes." for n in range(60)]
    chunks = chunk_text("\n\n".join(paragraphs))
    assert len(chunks) > 1
    assert all(len(c.text) <= CHUNK_CHARS for c in chunks)
    assert [p for c in chunks for p in c.text.split("\n\n")] == paragraphs


def test_repeated_chunks_get_distinct_ids_and_hashes_follow_heading_and_text(
    tmp_path: Path,
) -> None:
    text = "# A\nSame text.\n\n# B\nSame text.\n\n# A\nSame text.\n"
    chunks = chunk_markdown(text)
    assert [(c.heading, c.occurrence) for c in chunks] == [("A", 1), ("B", 1), ("A", 2)]
    assert chunks[0].digest == chunks[2].digest != chunks[1].digest
    doc = load_document(text, source="notes.md")
    ids = [doc.local_id(c) for c in doc.chunks]
    assert len(set(ids)) == 3 and ids[2] == ids[0] + "-2"
    assert all(is_document_turn(turn_id("chat-1", i)) for i in ids)
    assert not is_document_turn("chat-1:t4")


def test_plan_keeps_unchanged_chunks_and_replaces_changed_ones() -> None:
    before = load_document("# A\nOne.\n\n# B\nTwo.\n", source="notes.md")
    stored = [turn_id("c1", before.local_id(c)) for c in before.chunks]
    same = plan_document(before, "c1", stored)
    assert not same and same.kept == 2 and same.add == () and same.remove == ()
    after = load_document("# A\nOne.\n\n# B\nTwo, changed.\n", source="notes.md")
    plan = plan_document(after, "c1", stored)
    assert plan.kept == 1
    assert [c.text for _, c in plan.add] == ["B\nTwo, changed."]
    assert plan.remove == (stored[1],)
    # a moved paragraph is a changed chunk: its heading is part of its identity
    moved = plan_document(
        load_document("# A\nOne.\n\n# C\nTwo.\n", source="notes.md"), "c1", stored
    )
    assert moved.kept == 1 and moved.remove == (stored[1],)
    # another document's key never matches these ids
    other = load_document("# A\nOne.\n\n# B\nTwo.\n", source="other.md")
    assert plan_document(other, "c1", stored).kept == 0


def test_a_file_names_its_source_speaker_and_time(tmp_path: Path) -> None:
    path = tmp_path / "handbook.md"
    path.write_text("# Office\nIn Lisbon.\n", encoding="utf-8")
    stamp = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC).timestamp()
    os.utime(path, (stamp, stamp))
    doc = load_document(path)
    assert doc.key == path.resolve().as_posix()
    assert doc.name == "handbook.md" and doc.format == "markdown"
    assert doc.conversation_id == "doc-handbook.md"
    assert doc.observed_at == datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    assert doc.source_of(doc.chunks[0]) == f"{doc.key}#Office"
    assert load_document(str(path)).key == doc.key  # a one-line string naming a file is a path
    named = load_document(
        path,
        source="team/handbook.md",
        observed_at=datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(hours=2))),
    )
    assert (named.key, named.name) == ("team/handbook.md", "handbook.md")
    assert named.observed_at == datetime(2026, 1, 1, 10, tzinfo=UTC)


def test_plain_text_files_are_paragraphs_not_markdown(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("# not a heading\n\n    not code\n", encoding="utf-8")
    doc = load_document(path)
    assert doc.format == "text"
    assert [c.text for c in doc.chunks] == ["# not a heading\n\nnot code"]
    assert doc.chunks[0].trail == ()
    assert doc.source_of(doc.chunks[0]) == doc.key


def test_a_pdf_is_one_section_per_page(tmp_path: Path) -> None:
    path = tmp_path / "policy.pdf"
    path.write_bytes(tiny_pdf(["The office is in Lisbon.", "Holidays: 25 days a year."]))
    doc = load_document(path)
    assert doc.format == "pdf" and doc.name == "policy.pdf"
    assert [(c.heading, c.text) for c in doc.chunks] == [
        ("page 1", "The office is in Lisbon."),
        ("page 2", "Holidays: 25 days a year."),
    ]
    assert doc.source_of(doc.chunks[1]) == f"{path.resolve().as_posix()}#page 2"
    big = tmp_path / "big.pdf"
    with big.open("wb") as out:
        out.truncate(MAX_PDF_BYTES + 1)
    with pytest.raises(DocumentRejected) as caught:
        load_document(big)
    assert caught.value.kind == "too_large"


def test_a_text_is_markdown_with_a_hash_key_unless_named() -> None:
    doc = load_document("Line one.\nLine two.")
    assert doc.key.startswith("text-") and doc.name == "document" and doc.format == "markdown"
    assert doc.observed_at.tzinfo is not None
    assert load_document("Line one.\nLine two.").key == doc.key
    assert load_document("# x\ny", source="a.txt").format == "text"
    named = load_document("Line one.\nLine two.", source="notes/plan.md")
    assert named.key == "notes/plan.md" and named.name == "plan.md"
    assert named.format == "markdown"
    # a named text keeps its key when its text changes, so re-adding it replaces it
    assert load_document("Line one, changed.", source="notes/plan.md").key == named.key
    assert load_document("Line one, changed.").key != doc.key


@pytest.mark.parametrize(
    ("content", "name", "kind"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image.md", "binary"),
        ("Grüße".encode("utf-16"), "utf16.txt", "binary"),
        (b"caf\xe9 au lait", "latin1.md", "undecodable"),
        (b"   \n\n\t", "blank.md", "empty"),
        (b"# Heading\n## Only\n", "headings.md", "empty"),
        (b"\x01\x02\x03\x04 text", "controls.txt", "binary"),
        (b"%PDF-1.7\nnot a PDF at all", "paper.pdf", "undecodable"),
        (tiny_pdf([""]), "scan.pdf", "empty"),
        (b"x" * (MAX_DOCUMENT_CHARS + 1), "long.md", "too_large"),
    ],
)
def test_bad_files_are_rejected_with_their_kind(
    tmp_path: Path, content: bytes, name: str, kind: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DocumentRejected) as caught:
        load_document(path)
    assert caught.value.kind == kind
    assert caught.value.file == str(path)
    assert isinstance(caught.value, MalformedInput)


def test_oversized_missing_and_directory_paths_are_rejected(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    with big.open("wb") as out:  # sparse: the size is checked before anything is read
        out.truncate(MAX_DOCUMENT_BYTES + 1)
    with pytest.raises(DocumentRejected) as caught:
        load_document(big)
    assert caught.value.kind == "too_large" and "bytes" in str(caught.value)
    for path in (tmp_path / "missing.md", tmp_path):
        with pytest.raises(DocumentRejected) as caught:
            load_document(path)
        assert caught.value.kind == "unreadable"


def test_bad_arguments_are_malformed_input() -> None:
    with pytest.raises(MalformedInput, match="timezone-aware"):
        load_document("text", observed_at=datetime(2026, 1, 1))
    with pytest.raises(MalformedInput, match="source"):
        load_document("text", source="  ")
    with pytest.raises(DocumentRejected) as caught:
        load_document("bad \ud83d surrogate")
    assert caught.value.kind == "undecodable"
    with pytest.raises(MalformedInput, match="path or a string"):
        load_document(b"bytes")  # type: ignore[arg-type]
