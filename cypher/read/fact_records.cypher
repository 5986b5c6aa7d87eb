// Every fact of a conversation with what the write path derives from it (cited turns, ABOUT
// links, its embedding), to re-derive supersession and events after turns are forgotten.
// :param conversation_id => 'conv-26'
MATCH (f:Fact {conversation_id: $conversation_id})
RETURN f.id AS id, f.subject AS subject, f.relation AS relation, f.object AS object,
       f.text AS text, f.source AS source, f.event_time AS event_time, f.event_end AS event_end,
       f.event_granularity AS event_granularity, f.event_phrase AS event_phrase,
       f.valid_from AS valid_from, f.key AS key, f.serial AS serial, f.confidence AS confidence,
       f.session AS session, f.embedding AS embedding,
       [(f)-[:CITES]->(t:Turn) | t.id] AS cites,
       [(f)-[a:ABOUT]->(e:Entity) | [e.id, a.role]] AS about
ORDER BY f.serial, f.id
