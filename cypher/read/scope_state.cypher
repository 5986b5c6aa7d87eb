// The searched conversations' write versions (a fresh UUID after every turn or entity write,
// so a search cursor can tell that memory changed) and their speakers as stored (to match a
// speaker filter case- and accent-insensitively in code, kgmem.steer).
// :param conversation_ids => ['conv-26']
UNWIND $conversation_ids AS cid
OPTIONAL MATCH (c:Conversation {id: cid})
RETURN cid AS conversation_id, c.version AS version,
       COLLECT { MATCH (t:Turn {conversation_id: cid}) RETURN DISTINCT t.speaker } AS speakers
