// Give a conversation its owner before its turns are written (write/merge_turns copies the
// owner onto every turn and fact). A conversation keeps the owner it has: the statement changes
// nothing and returns the stored owner when it differs (the caller raises). A conversation
// without an owner that already holds turns gets the owner on them too (owner and the owner's
// fulltext token). `before` is the owner before this call.
// :param conversation_id => 'thread-3'
// :param owner => 'alice'
// :param owner_tk => '987654321'
MERGE (c:Conversation {id: $conversation_id})
WITH c, c.owner AS before
OPTIONAL CALL (c, before) {
  WITH c WHERE before IS NULL
  SET c.owner = $owner, c.owner_tk = $owner_tk, c.version = randomUUID()
  WITH c
  CALL (c) {
    MATCH (t:Turn {conversation_id: c.id})
    SET t.owner = c.owner, t.tk = t.tk + ' ' + c.owner_tk
    RETURN count(*) AS turns
  }
  CALL (c) {
    MATCH (f:Fact {conversation_id: c.id})
    SET f.owner = c.owner, f.tk = f.tk + ' ' + c.owner_tk
    RETURN count(*) AS facts
  }
  RETURN turns + facts AS tagged
}
RETURN before, c.owner AS owner
