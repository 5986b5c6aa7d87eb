// A conversation's memory requests ("forget my X", "don't save this") with the request turn
// each came from (still stored, `request = true`, restated values masked) and the ids of the
// turns it removed. The audit records hold ids, kinds, statuses, positions and times: no text.
// :param conversation_id => 'agent-05-forget-secret'
MATCH (r:MemoryRequest {conversation_id: $conversation_id})
OPTIONAL MATCH (t:Turn {id: r.turn_id, conversation_id: $conversation_id})
RETURN r, t, r.removed AS removed_turn_ids
ORDER BY r.index
