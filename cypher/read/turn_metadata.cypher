// The metadata of turns (kgmem.metadata): each turn's `meta_<key>` properties as
// [property, value] pairs (none for a turn without metadata). Only turns of the searched
// conversations are read.
// :param turn_ids => ['conv-26:D1:3']
// :param conversation_ids => ['conv-26']
UNWIND $turn_ids AS turn_id
MATCH (t:Turn {id: turn_id})
WHERE t.conversation_id IN $conversation_ids
RETURN t.id AS turn_id, [k IN keys(t) WHERE k STARTS WITH 'meta_' | [k, t[k]]] AS pairs
