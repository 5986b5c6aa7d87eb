// A conversation's timeline: its turns in utterance order along NEXT, with their sessions.
// Paste into Neo4j Browser after setting the parameters, e.g.:
// :param conversation_id => 'conv-26'
// :param from_index => 0
// :param limit => 40
MATCH (t:Turn {conversation_id: $conversation_id})
WHERE t.index >= $from_index
WITH t ORDER BY t.index LIMIT toInteger($limit)
OPTIONAL MATCH next = (t)-[:NEXT]->(:Turn)
OPTIONAL MATCH session = (t)-[:IN_SESSION]->(:Session)
RETURN t, next, session
ORDER BY t.index
