// Canonical entities of a conversation (with the owner's shared entities when it has an owner,
// kgmem.ingest.threads) whose name or an alias equals $name (case-insensitive).
// :param conversation_id => 'conv-26'
// :param name => 'Mel'
OPTIONAL MATCH (c:Conversation {id: $conversation_id})
CALL (c) {
  MATCH (e:Entity {conversation_id: $conversation_id}) RETURN e
  UNION
  MATCH (e:Entity {owner: c.owner}) RETURN e
}
WITH e
WHERE toLower(e.name) = toLower($name)
   OR any(alias IN coalesce(e.aliases, []) WHERE toLower(alias) = toLower($name))
RETURN e.id AS id, e.name AS name, e.type AS type, e.aliases AS aliases
ORDER BY (toLower(e.name) = toLower($name)) DESC, e.id
