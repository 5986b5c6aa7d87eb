// The memory requests of one conversation, in conversation order: the audit record of each
// (kgmem.ingest.requests.rules; ids, kind, status, counts and times, never any text). `gone` is what
// an applied or withheld request keeps out of the conversation, re-applied on every re-ingest.
// :param conversation_id => 'agent-05-forget-secret'
MATCH (r:MemoryRequest {conversation_id: $conversation_id})
RETURN r.id AS id, r.turn_id AS turn_id, r.kind AS kind, r.status AS status, r.index AS index,
       r.observed_at AS observed_at, r.recorded_at AS recorded_at,
       coalesce(r.removed, []) AS removed, r.matched AS matched,
       CASE r.kind WHEN 'withhold' THEN [r.turn_id] ELSE coalesce(r.removed, []) END AS gone
ORDER BY r.index, r.id
