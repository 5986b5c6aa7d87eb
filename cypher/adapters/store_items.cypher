// The store's view of some turns: item key, JSON value, whether a newer version supersedes the
// turn, whether it has searchable text, and when the item was first created (its oldest
// version).
// :param conversation_id => 'users.ana'
// :param turn_ids => ['users.ana:home']
UNWIND $turn_ids AS turn_id
MATCH (t:Turn {id: turn_id, conversation_id: $conversation_id})
OPTIONAL MATCH (t)-[:SUPERSEDES*1..]->(old:Turn)
WITH t, min(old.observed_at) AS first_seen
RETURN t.id AS turn_id, coalesce(t.store_key, t.dia_id) AS key, t.store_value AS value,
       t.text AS text, t.speaker AS speaker, t.observed_at AS updated_at,
       coalesce(first_seen, t.observed_at) AS created_at,
       EXISTS { (:Turn)-[:SUPERSEDES]->(t) } AS superseded,
       coalesce(t.store_searchable, true) AS searchable
