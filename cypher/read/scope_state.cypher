// The searched conversations' write versions (a fresh UUID after every turn or entity write,
// so a search cursor can tell that memory changed) and, when $with_speakers, their speakers
// as stored (to match a speaker filter case- and accent-insensitively in code, kgmem.steer;
// reading them scans the conversation's turns, so only a search with a speaker pays it).
// :param conversation_ids => ['conv-26']
// :param with_speakers => true
UNWIND $conversation_ids AS cid
OPTIONAL MATCH (c:Conversation {id: cid})
RETURN cid AS conversation_id, c.version AS version,
       CASE WHEN $with_speakers
            THEN COLLECT { MATCH (t:Turn {conversation_id: cid}) RETURN DISTINCT t.speaker }
            ELSE [] END AS speakers
