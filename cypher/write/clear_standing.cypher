// Remove a conversation's derived instructions and conflicts before they are derived again
// (kgmem.ingest.extraction.standing.derive_standing), and bump the Conversation's version: a
// search caches them with the conversation's context until the version changes.
// :param conversation_id => 'beam-100K-1'
OPTIONAL MATCH (conversation:Conversation {id: $conversation_id})
SET conversation.version = randomUUID()
WITH count(*) AS bumped
CALL {
  MATCH (i:Instruction {conversation_id: $conversation_id})
  DETACH DELETE i
  RETURN count(*) AS instructions
}
CALL {
  MATCH (:Turn {conversation_id: $conversation_id})-[c:CONFLICTS]->()
  DELETE c
  RETURN count(*) AS conflicts
}
RETURN instructions, conflicts
