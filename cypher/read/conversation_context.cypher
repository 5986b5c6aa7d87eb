// What the planner needs to know about a conversation: its speakers, its canonical entities
// (names and aliases, for resolving names in questions) and its latest timestamp ("now").
// :param conversation_id => 'conv-26'
CALL {
  MATCH (t:Turn {conversation_id: $conversation_id})
  WITH t.speaker AS speaker, min(t.index) AS first
  ORDER BY first
  RETURN collect(speaker) AS speakers
}
CALL {
  MATCH (t:Turn {conversation_id: $conversation_id})
  RETURN max(t.observed_at) AS latest
}
CALL {
  MATCH (e:Entity {conversation_id: $conversation_id})
  RETURN collect({id: e.id, name: e.name, type: e.type, aliases: coalesce(e.aliases, [])}) AS entities
}
RETURN speakers, latest, entities
