// (newer)-[:SUPERSEDES {cue, confidence}]->(older) on the same supersession key. The older
// fact is kept, with valid_to = the newer fact's valid_from (or unchanged if the newer has none).
// cue: the change cue that fired ("switched", "no longer", "later value"); confidence in [0, 1].
// Never deletes.
// $rows: [{newer, older, cue, confidence}]
UNWIND $rows AS row
MATCH (n:Fact {id: row.newer}), (o:Fact {id: row.older})
// never across tenants: one conversation, or two threads of one owner (kgmem.ingest.writing.threads)
WHERE n.conversation_id = o.conversation_id OR (n.owner <> '' AND n.owner = o.owner)
MERGE (n)-[s:SUPERSEDES]->(o)
SET o.valid_to = coalesce(n.valid_from, o.valid_to),
    s.cue = coalesce(row.cue, s.cue),
    s.confidence = coalesce(row.confidence, s.confidence)
