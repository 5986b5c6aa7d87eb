// Remove everything of one owner in one transaction: every conversation it owns, as
// write/forget_conversation removes one (turns, sessions, facts, events, the entities nothing
// else uses and the owner's shared entities, the Conversation nodes, forgotten-turn ids,
// memory-request records and standing instructions). Returns
// what was deleted; `conversations` = how many conversations the owner had.
// :param owner => 'alice'
MATCH (c:Conversation {owner: $owner})
WITH collect(c.id) AS ids
CALL (ids) {
  MATCH (p:Passage) WHERE p.conversation_id IN ids DETACH DELETE p RETURN count(*) AS passages
}
CALL (ids) {
  MATCH (t:Turn) WHERE t.conversation_id IN ids DETACH DELETE t RETURN count(*) AS turns
}
CALL (ids) {
  MATCH (f:Fact) WHERE f.conversation_id IN ids DETACH DELETE f RETURN count(*) AS facts
}
CALL (ids) {
  MATCH (e:Event) WHERE e.conversation_id IN ids DETACH DELETE e RETURN count(*) AS events
}
CALL (ids) {
  MATCH (s:Session) WHERE s.conversation_id IN ids DETACH DELETE s RETURN count(*) AS sessions
}
CALL (ids) {
  MATCH (e:Entity) WHERE e.conversation_id IN ids AND NOT EXISTS { (e)<-[:ABOUT|MENTIONS]-() }
  DETACH DELETE e RETURN count(*) AS own
}
CALL () {
  MATCH (e:Entity {owner: $owner}) DETACH DELETE e RETURN count(*) AS shared
}
CALL (ids) {
  MATCH (g:ForgottenTurn) WHERE g.conversation_id IN ids DELETE g RETURN count(*) AS forgotten
}
CALL (ids) {
  MATCH (r:MemoryRequest) WHERE r.conversation_id IN ids DELETE r RETURN count(*) AS requests
}
CALL (ids) {
  MATCH (i:Instruction) WHERE i.conversation_id IN ids DETACH DELETE i
  RETURN count(*) AS instructions
}
CALL (ids) {
  MATCH (c:Conversation) WHERE c.id IN ids DETACH DELETE c RETURN count(*) AS conversations
}
RETURN turns, facts, events, sessions, own + shared AS entities, conversations
