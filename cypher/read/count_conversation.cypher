// Node and edge counts of one conversation.
// :param conversation_id => 'conv-26'
CALL {
  MATCH (t:Turn {conversation_id: $conversation_id}) RETURN count(t) AS turns
}
CALL {
  MATCH (:Turn {conversation_id: $conversation_id})-[r:NEXT]->() RETURN count(r) AS next
}
CALL {
  MATCH (f:Fact {conversation_id: $conversation_id}) RETURN count(f) AS facts
}
CALL {
  MATCH (f:Fact {conversation_id: $conversation_id})-[r:CITES]->() RETURN count(r) AS cites
}
CALL {
  // its own entities, and the owner's shared entities its turns or facts use
  CALL {
    MATCH (e:Entity {conversation_id: $conversation_id}) RETURN e
    UNION
    MATCH (:Turn {conversation_id: $conversation_id})-[:MENTIONS]->(e:Entity)
    WHERE e.owner IS NOT NULL
    RETURN e
    UNION
    MATCH (:Fact {conversation_id: $conversation_id})-[:ABOUT]->(e:Entity)
    WHERE e.owner IS NOT NULL
    RETURN e
  }
  RETURN count(e) AS entities
}
CALL {
  MATCH (e:Event {conversation_id: $conversation_id}) RETURN count(e) AS events
}
CALL {
  MATCH (s:Session {conversation_id: $conversation_id}) RETURN count(s) AS sessions
}
RETURN turns, next, facts, cites, entities, events, sessions
