// Remove one conversation: its turns, sessions, facts, events, and the entities that no other
// conversation's facts or turns still use; also its Conversation node (version, write lock) and
// the ids of turns it forgot one by one and its memory requests' audit records. Returns what
// was deleted. In an owned conversation, the owner's shared entities (kgmem.ingest.writing.threads) lose
// the aliases only this conversation gave, and those no other thread uses any more go too
// (`entities` counts both kinds).
// :param conversation_id => 'conv-26'
OPTIONAL MATCH (owned:Conversation {id: $conversation_id})
WITH owned.owner AS owner
CALL {
  MATCH (p:Passage {conversation_id: $conversation_id}) DETACH DELETE p RETURN count(*) AS passages
}
CALL {
  MATCH (i:Instruction {conversation_id: $conversation_id}) DETACH DELETE i
  RETURN count(*) AS instructions
}
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
  DETACH DELETE e RETURN count(*) AS own
}
CALL (owner) {
  MATCH (e:Entity {owner: owner})
  WHERE any(x IN coalesce(e.alias_from, []) WHERE x STARTS WITH $conversation_id + '\t')
  WITH e, [x IN e.alias_from WHERE NOT x STARTS WITH $conversation_id + '\t'] AS sources
  WITH e, sources,
       reduce(acc = [], x IN sources |
         CASE WHEN substring(x, size(split(x, '\t')[0]) + 1) IN acc THEN acc
              ELSE acc + substring(x, size(split(x, '\t')[0]) + 1) END) AS aliases
  SET e.alias_from = sources,
      e.aliases = aliases,
      e.aliases_text = reduce(s = '', a IN aliases | s + CASE WHEN s = '' THEN '' ELSE ' ' END + a)
  RETURN count(*) AS stripped
}
CALL (owner) {
  MATCH (e:Entity {owner: owner})
  WHERE NOT EXISTS { (e)<-[:ABOUT|MENTIONS]-() }
  DETACH DELETE e RETURN count(*) AS shared
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
RETURN turns, facts, events, sessions, own + shared AS entities
