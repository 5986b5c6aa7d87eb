// The latest version of every item in some conversations (turns no newer turn supersedes),
// most recently updated first. Used by a LangGraph store search without a query.
// :param conversation_ids => ['users.ana']
// :param limit => 100
MATCH (t:Turn)
WHERE t.conversation_id IN $conversation_ids AND NOT EXISTS { (:Turn)-[:SUPERSEDES]->(t) }
WITH t ORDER BY t.observed_at DESC, t.index DESC LIMIT $limit
OPTIONAL MATCH (t)-[:SUPERSEDES*1..]->(old:Turn)
WITH t, min(old.observed_at) AS first_seen
RETURN t.id AS turn_id, t.conversation_id AS conversation_id,
       coalesce(t.store_key, t.dia_id) AS key, t.store_value AS value, t.text AS text,
       t.speaker AS speaker, t.observed_at AS updated_at,
       coalesce(first_seen, t.observed_at) AS created_at
ORDER BY updated_at DESC, t.index DESC
