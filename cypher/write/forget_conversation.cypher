// Remove one conversation: its turns, sessions, facts, events, and the entities that no other
// conversation's facts or turns still use; also its Conversation node (version, write lock) and
// the ids of turns it forgot one by one and its memory requests' audit records. Returns what
// was deleted.
// :param conversation_id => 'conv-26'
CALL {
  MATCH (t:Turn {conversation_id: $conversation_id}) DETACH DELETE t RETURN count(*) AS turns
}
CALL {
  MATCH (f:Fact {conversation_id: $conversation_id}) DETACH DELETE f RETURN count(*) AS facts
}
CALL {
  MATCH (e:Event {conversation_id: $conversation_id}) DETACH DELETE e RETURN count(*) AS events
}
CALL {
  MATCH (s:Session {conversation_id: $conversation_id}) DETACH DELETE s RETURN count(*) AS sessions
}
CALL {
  MATCH (e:Entity {conversation_id: $conversation_id})
  WHERE NOT EXISTS { (e)<-[:ABOUT|MENTIONS]-() }
  DETACH DELETE e RETURN count(*) AS entities
}
CALL {
  MATCH (c:Conversation {id: $conversation_id}) DETACH DELETE c RETURN count(*) AS conversations
}
CALL {
  MATCH (g:ForgottenTurn {conversation_id: $conversation_id}) DELETE g RETURN count(*) AS forgotten
}
CALL {
  MATCH (r:MemoryRequest {conversation_id: $conversation_id}) DELETE r RETURN count(*) AS requests
}
RETURN turns, facts, events, sessions, entities
