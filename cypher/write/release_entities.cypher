// Let go of an owner's shared entities (kgmem.ingest.writing.threads) for one of its conversations,
// before what it derives is derived again (after write/clear_derived) or after it is forgotten:
// its turns' MENTIONS of them go, the aliases only it gave go (`alias_from`), and every shared
// entity of the owner that no fact or turn of any thread uses any more is deleted.
// Returns how many shared entities were deleted.
// :param conversation_id => 'thread-3'
// :param owner => 'alice'
CALL {
  MATCH (:Turn {conversation_id: $conversation_id})-[m:MENTIONS]->(e:Entity {owner: $owner})
  DELETE m
  RETURN count(*) AS mentions
}
CALL {
  MATCH (e:Entity {owner: $owner})
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
CALL {
  MATCH (e:Entity {owner: $owner})
  WHERE NOT EXISTS { (e)<-[:ABOUT|MENTIONS]-() }
  DETACH DELETE e
  RETURN count(*) AS entities
}
RETURN entities
