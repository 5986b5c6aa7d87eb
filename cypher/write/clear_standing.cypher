// Remove a conversation's derived instructions and conflicts before they are derived again
// (kgmem.ingest.extraction.standing.derive_standing).
// :param conversation_id => 'beam-100K-1'
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
