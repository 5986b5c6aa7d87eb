// Per turn of a conversation: how many facts of each source cite it, and whether one of them
// carries a resolved event_time (for the fact-coverage report of the LoCoMo benchmark).
// :param conversation_id => 'conv-26'
MATCH (t:Turn {conversation_id: $conversation_id})
OPTIONAL MATCH (f:Fact)-[:CITES]->(t)
WITH t, f
RETURN t.id AS turn_id,
       count(CASE WHEN f.source = 'annotation' THEN 1 END) AS annotation,
       count(CASE WHEN f.source = 'extracted' THEN 1 END) AS extracted,
       count(CASE WHEN f.event_time IS NOT NULL THEN 1 END) AS dated
