// Stamp a turn the store adapter just appended with its item key and JSON value, and link it
// to the version it replaces: (newer)-[:SUPERSEDES]->(older). Turns are immutable; an item's
// history is its chain of turns. `searchable` is false for a value with no text (its turn's
// text is the value's JSON): a query search skips it.
// :param conversation_id => 'users.ana'
// :param turn_id => 'users.ana:home~2'
// :param key => 'home'
// :param value => '{"text": "I live in Lisbon"}'
// :param searchable => true
// :param supersedes => 'users.ana:home'
MATCH (t:Turn {id: $turn_id, conversation_id: $conversation_id})
SET t.store_key = $key, t.store_value = $value, t.store_searchable = $searchable
WITH t
OPTIONAL MATCH (old:Turn {id: $supersedes, conversation_id: $conversation_id})
FOREACH (_ IN CASE WHEN old IS NULL OR old = t THEN [] ELSE [1] END |
  MERGE (t)-[:SUPERSEDES]->(old))
RETURN t.id AS turn_id
