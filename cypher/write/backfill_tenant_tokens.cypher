// Give one conversation its Conversation node, and its turns and facts the properties the search
// indexes filter on: the fulltext tenant token `tk` (with the owner's token when the
// conversation has an owner), `owner` ('' for none) and, on turns, `source_kind` ('chat' when
// unset). Data written before kgmem 0.2 has no tokens; before owners, no owner or source kind.
// Idempotent.
// :param conversation_id => 'conv-26'
// :param tk => '1234567890'
MERGE (c:Conversation {id: $conversation_id})
SET c.version = randomUUID()
WITH c, $tk + coalesce(' ' + c.owner_tk, '') AS tk, coalesce(c.owner, '') AS owner
CALL (tk, owner) {
  MATCH (t:Turn {conversation_id: $conversation_id})
  SET t.tk = tk, t.owner = owner, t.source_kind = coalesce(t.source_kind, 'chat')
  RETURN count(*) AS turns
}
CALL (tk, owner) {
  MATCH (f:Fact {conversation_id: $conversation_id})
  SET f.tk = tk, f.owner = owner
  RETURN count(*) AS facts
}
RETURN turns, facts
