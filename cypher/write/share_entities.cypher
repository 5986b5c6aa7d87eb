// Move one owned conversation's own entities into its owner's scope (kgmem.ingest.writing.threads):
// each becomes (or joins) the shared entity '<scope>' + its id after the conversation id,
// with its aliases recorded as this conversation's (`alias_from`), its ABOUT and MENTIONS
// edges moved, and the old node deleted. Then the conversation's facts name the shared ids
// (subject, object, holder, key) and its version is bumped. Data is kept; idempotent.
// :param conversation_id => 'thread-3'
// :param scope => 'owner:alice'
MATCH (c:Conversation {id: $conversation_id})
WHERE c.owner IS NOT NULL
CALL (c) {
  MATCH (e:Entity {conversation_id: c.id})
  MERGE (n:Entity {id: $scope + substring(e.id, size(c.id)), conversation_id: $scope})
  SET n.name = coalesce(n.name, e.name),
      n.type = e.type,
      n.owner = c.owner,
      n.alias_from = [x IN coalesce(n.alias_from, []) WHERE NOT x STARTS WITH c.id + '\t']
                     + [a IN coalesce(e.aliases, []) | c.id + '\t' + a]
  WITH e, n,
       reduce(acc = [], x IN n.alias_from |
         CASE WHEN substring(x, size(split(x, '\t')[0]) + 1) IN acc THEN acc
              ELSE acc + substring(x, size(split(x, '\t')[0]) + 1) END) AS aliases
  SET n.aliases = aliases,
      n.aliases_text = reduce(s = '', a IN aliases | s + CASE WHEN s = '' THEN '' ELSE ' ' END + a)
  WITH e, n
  CALL (e, n) {
    MATCH (f:Fact)-[a:ABOUT]->(e)
    MERGE (f)-[:ABOUT {role: a.role}]->(n)
    RETURN count(*) AS about
  }
  CALL (e, n) {
    MATCH (t:Turn)-[:MENTIONS]->(e)
    MERGE (t)-[:MENTIONS]->(n)
    RETURN count(*) AS mentions
  }
  DETACH DELETE e
  RETURN count(*) AS entities
}
CALL (c) {
  MATCH (f:Fact {conversation_id: c.id})
  WITH f, c.id + ':e:' AS old, $scope + ':e:' AS new
  SET f.subject = CASE WHEN f.subject STARTS WITH old
                       THEN new + substring(f.subject, size(old)) ELSE f.subject END,
      f.object = CASE WHEN f.object STARTS WITH old
                      THEN new + substring(f.object, size(old)) ELSE f.object END,
      f.holder = CASE WHEN f.holder STARTS WITH old
                      THEN new + substring(f.holder, size(old)) ELSE f.holder END,
      f.key = CASE WHEN f.key STARTS WITH old
                   THEN new + substring(f.key, size(old)) ELSE f.key END
  RETURN count(*) AS facts
}
SET c.version = randomUUID()
RETURN entities, facts
