// Every entity of a conversation with its name and aliases: the chain operator matches the
// question's name spans against them (normalised in code, see kgmem.retrieve.chain.name_key).
// :param conversation_id => 'factconsolidation_mh_6k'
// In an owned conversation the owner's shared entities (kgmem.ingest.writing.threads) are its entities.
OPTIONAL MATCH (c:Conversation {id: $conversation_id})
CALL (c) {
  MATCH (e:Entity {conversation_id: $conversation_id}) RETURN e
  UNION
  MATCH (e:Entity {owner: c.owner}) RETURN e
}
WITH e
RETURN e.id AS id, e.name AS name, coalesce(e.aliases, []) AS aliases, e.type AS type
ORDER BY e.id
