// An entity's facts over time, oldest first, with their SUPERSEDES chains and cited turns.
// $name matches the canonical name or an alias, case-insensitively.
// :param conversation_id => 'conv-26'
// :param name => 'Caroline'
OPTIONAL MATCH (c:Conversation {id: $conversation_id})
CALL (c) {
  MATCH (e:Entity {conversation_id: $conversation_id}) RETURN e
  UNION
  MATCH (e:Entity {owner: c.owner}) RETURN e
}
WITH e
WHERE toLower(e.name) = toLower($name)
   OR any(alias IN coalesce(e.aliases, []) WHERE toLower(alias) = toLower($name))
MATCH about = (f:Fact)-[:ABOUT]->(e)
RETURN about,
       COLLECT { MATCH chain = (f)-[:SUPERSEDES]->(:Fact) RETURN chain } AS supersedes,
       COLLECT { MATCH cites = (f)-[:CITES]->(:Turn) RETURN cites } AS cites
ORDER BY f.serial, f.valid_from, f.id
