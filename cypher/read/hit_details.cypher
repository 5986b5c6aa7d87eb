// For search hits: each turn's resolved event date (the earliest dated fact citing it: when the
// text names a day, "yesterday" said on 8 May is 7 May) and its phrase. Only turns of the
// searched conversations are read.
// :param turn_ids => ['conv-26:D1:3']
// :param conversation_ids => ['conv-26']
UNWIND $turn_ids AS turn_id
MATCH (t:Turn {id: turn_id})
WHERE t.conversation_id IN $conversation_ids
OPTIONAL MATCH (f:Fact)-[:CITES]->(t)
WHERE f.event_time IS NOT NULL
WITH t, f
ORDER BY f.serial
WITH t, collect(f)[0] AS f
RETURN t.id AS turn_id, f.event_time AS event_time, f.event_granularity AS granularity,
       f.event_phrase AS phrase
