// Give one conversation's turns and facts their fulltext tenant token and the conversation its
// Conversation node (data written before kgmem 0.2 has neither). Idempotent.
// :param conversation_id => 'conv-26'
// :param tk => '1234567890'
CALL {
  MATCH (t:Turn {conversation_id: $conversation_id}) SET t.tk = $tk RETURN count(*) AS turns
}
CALL {
  MATCH (f:Fact {conversation_id: $conversation_id}) SET f.tk = $tk RETURN count(*) AS facts
}
MERGE (c:Conversation {id: $conversation_id})
SET c.version = randomUUID()
RETURN turns, facts
