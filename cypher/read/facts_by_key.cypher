// Every fact on the given supersession keys, oldest first, with its SUPERSEDES links and cited
// turns: the history of a single-valued relation. The current value is the last row.
// :param conversation_id => 'conv-26'
// :param keys => ['conv-26:e:person:caroline|residence']
MATCH (f:Fact {conversation_id: $conversation_id})
WHERE f.key IN $keys
OPTIONAL MATCH (f)-[:SUPERSEDES]->(older:Fact)
OPTIONAL MATCH (newer:Fact)-[:SUPERSEDES]->(f)
WITH f, collect(DISTINCT older.id) AS supersedes, collect(DISTINCT newer.id) AS superseded_by
RETURN f.id AS id, f.key AS key, f.text AS text, f.subject AS subject, f.relation AS relation,
       f.object AS object, f.serial AS serial, f.valid_from AS valid_from, f.valid_to AS valid_to,
       f.event_time AS event_time, f.source AS source, supersedes,
       head(superseded_by) AS superseded_by,
       [(f)-[:CITES]->(t:Turn) | t.id] AS cites
ORDER BY f.serial ASC, f.valid_from ASC, f.id ASC
