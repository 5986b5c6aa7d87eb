// Counts of a numbered-fact tenant: entities, facts, ABOUT and SUPERSEDES edges, current facts.
// :param conversation_id => 'factconsolidation_sh_6k'
CALL {
  MATCH (e:Entity {conversation_id: $conversation_id}) RETURN count(e) AS entities
}
CALL {
  MATCH (f:Fact {conversation_id: $conversation_id}) RETURN count(f) AS facts
}
CALL {
  MATCH (:Fact {conversation_id: $conversation_id})-[r:ABOUT]->() RETURN count(r) AS about
}
CALL {
  MATCH (:Fact {conversation_id: $conversation_id})-[r:SUPERSEDES]->() RETURN count(r) AS supersedes
}
CALL {
  MATCH (f:Fact {conversation_id: $conversation_id})
  WHERE NOT EXISTS { (f)<-[:SUPERSEDES]-() }
  RETURN count(f) AS current
}
RETURN entities, facts, about, supersedes, current
