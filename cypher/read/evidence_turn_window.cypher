// A turn and its neighbours along NEXT, at most $window steps either way (capped at 10),
// in utterance order; offset is the signed number of steps from the asked turn.
// Scoped to one conversation: a turn id of another conversation returns nothing.
// :param conversation_id => 'conv-26'
// :param turn_id => 'conv-26:D1:3'
// :param window => 2
MATCH (t:Turn {id: $turn_id, conversation_id: $conversation_id})
CALL (t) {
  MATCH p = (n:Turn)-[:NEXT*1..10]->(t)
  WHERE length(p) <= $window
  RETURN n, -length(p) AS offset
  UNION ALL
  RETURN t AS n, 0 AS offset
  UNION ALL
  MATCH p = (t)-[:NEXT*1..10]->(n:Turn)
  WHERE length(p) <= $window
  RETURN n, length(p) AS offset
}
RETURN n.id AS turn_id, n.speaker AS speaker, n.session AS session, n.observed_at AS observed_at,
       n.text AS text, offset
ORDER BY offset
