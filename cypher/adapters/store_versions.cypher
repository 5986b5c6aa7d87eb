// Every version of one LangGraph store item, oldest first. An item's key is the turn's
// `store_key` (set by the store adapter) or, for turns written another way, its local id.
// :param conversation_id => 'users.ana'
// :param key => 'home'
MATCH (t:Turn {conversation_id: $conversation_id})
WHERE coalesce(t.store_key, t.dia_id) = $key
RETURN t.id AS turn_id, t.dia_id AS local_id, t.text AS text, t.speaker AS speaker,
       t.observed_at AS observed_at, t.store_value AS value, t.index AS index,
       EXISTS { (:Turn)-[:SUPERSEDES]->(t) } AS superseded
ORDER BY t.index
