// Remove what the write path derives for a conversation, before it is derived again from the
// turns that remain: extracted facts, events, entities, MENTIONS, SUPERSEDES and valid_to.
// Turns and given facts (annotation, manual, llm) stay; sessions left without turns go.
// :param conversation_id => 'conv-26'
CALL {
  MATCH (f:Fact {conversation_id: $conversation_id})
  WHERE f.source = 'extracted'
  DETACH DELETE f
  RETURN count(*) AS facts
}
CALL {
  MATCH (ev:Event {conversation_id: $conversation_id})
  DETACH DELETE ev
  RETURN count(*) AS events
}
CALL {
  MATCH (e:Entity {conversation_id: $conversation_id})
  DETACH DELETE e
  RETURN count(*) AS entities
}
CALL {
  MATCH (f:Fact {conversation_id: $conversation_id})
  OPTIONAL MATCH (f)-[s:SUPERSEDES]->()
  DELETE s
  REMOVE f.valid_to
  RETURN count(*) AS given
}
CALL {
  MATCH (s:Session {conversation_id: $conversation_id})
  WHERE NOT EXISTS { (s)<-[:IN_SESSION]-() }
  DETACH DELETE s
  RETURN count(*) AS sessions
}
RETURN facts, events, entities, sessions
