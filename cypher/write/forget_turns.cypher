// Forget turns of one conversation: delete the turns and the facts citing any of them, and
// remember each forgotten id (id only, never text) so that forgetting again is a no-op.
// Derived data (entities, mentions, events, supersession) is rebuilt by write/clear_derived
// and the merge statements in the same transaction (kgmem.ingest.pipeline.Ingestor.forget_turns).
// :param conversation_id => 'conv-26'
// :param turn_ids => ['conv-26:D1:3']
CALL {
  UNWIND $turn_ids AS turn_id
  MATCH (:Turn {id: turn_id, conversation_id: $conversation_id})<-[:CITES]-(f:Fact)
  WITH DISTINCT f
  DETACH DELETE f
  RETURN count(*) AS facts
}
CALL {
  UNWIND $turn_ids AS turn_id
  MATCH (:Turn {id: turn_id, conversation_id: $conversation_id})<-[:OF]-(p:Passage)
  DETACH DELETE p
  RETURN count(*) AS passages
}
CALL {
  UNWIND $turn_ids AS turn_id
  MATCH (:Turn {id: turn_id, conversation_id: $conversation_id})<-[:STATED_IN]-(i:Instruction)
  DETACH DELETE i
  RETURN count(*) AS instructions
}
CALL {
  UNWIND $turn_ids AS turn_id
  MATCH (t:Turn {id: turn_id, conversation_id: $conversation_id})
  DETACH DELETE t
  RETURN count(*) AS turns
}
CALL {
  UNWIND $turn_ids AS turn_id
  MERGE (g:ForgottenTurn {id: turn_id})
  SET g.conversation_id = $conversation_id
  RETURN count(*) AS remembered
}
CALL {
  MERGE (c:Conversation {id: $conversation_id})
  SET c.version = randomUUID()  // every process's cached context of it is now stale
  RETURN count(*) AS bumped
}
RETURN facts, turns
