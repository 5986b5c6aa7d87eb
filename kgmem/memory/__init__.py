"""The collaborators the `kgmem.api.Memory` facade owns and delegates to, one job each:

- `kgmem.memory.schema.SchemaKeeper`: constraints, indexes, migrations, index readiness;
- `kgmem.memory.ingestors.Ingestors`: builds the ingest pipeline a write runs;
- `kgmem.memory.owners.Owners`: who owns a conversation;
- `kgmem.memory.writer.Writer`: conversations, appended turns, documents;
- `kgmem.memory.forgetter.Forgetter`: forgetting, and the audit of memory requests;
- `kgmem.memory.search.Searcher`: the read path (`search`, `warm`);
- `kgmem.memory.facts.Facts`: chains, a relation's history, profiles, the timeline;
- `kgmem.memory.caches.ReadCaches`: what reads cache and writes drop.

Each is built from a store and the collaborators it needs, and is usable alone.
`kgmem.memory.delegate` derives the facade's methods and `kgmem.aio.AsyncMemory`'s from them.
"""
