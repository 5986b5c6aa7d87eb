// Audit records of memory requests (kgmem.ingest.requests.rules): ids, kind, status, position, times
// and the ids of the turns removed; never any text. Re-ingest merges: removed ids accumulate and
// an applied request stays applied (its turns are gone, so matching again finds nothing).
// $rows: [{id, conversation_id, turn_id, kind, status, index, observed_at, recorded_at, removed, matched}]
UNWIND $rows AS row
MERGE (r:MemoryRequest {id: row.id})
ON CREATE SET r.recorded_at = row.recorded_at
SET r.conversation_id = row.conversation_id,
    r.turn_id = row.turn_id,
    r.kind = row.kind,
    r.index = row.index,
    r.observed_at = row.observed_at,
    r.status = CASE WHEN r.status IN ['applied', 'withheld'] THEN r.status ELSE row.status END,
    r.removed = [x IN coalesce(r.removed, []) WHERE NOT x IN row.removed] + row.removed,
    r.matched = CASE WHEN coalesce(r.matched, 0) > row.matched THEN r.matched ELSE row.matched END
