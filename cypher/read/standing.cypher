// What a search serves beside its ranked turns (kgmem.retrieve.standing), in one round trip:
// the conversation's instructions in force at $as_of (all when null: stated by then and not
// revoked by then), the CONFLICTS pairs with a hit at either end (every pair of the
// conversation when $every: a search caches them until the conversation is written to), and
// the hits' utterance positions (for time order).
// :param conversation_id => 'beam-100K-1'
// :param as_of => null
// :param turn_ids => ['beam-100K-1:58']
// :param every => false
CALL {
  OPTIONAL MATCH (i:Instruction {conversation_id: $conversation_id})-[:STATED_IN]->(t:Turn)
  WHERE ($as_of IS NULL OR i.valid_from <= $as_of)
    AND (i.revoked_at IS NULL OR ($as_of IS NOT NULL AND i.revoked_at > $as_of))
  WITH i, t ORDER BY t.index
  RETURN collect(CASE WHEN i IS NULL THEN null ELSE {
    id: i.id, turn_id: t.id, kind: i.kind, text: i.text, scope: i.scope,
    valid_from: i.valid_from, revoked_at: i.revoked_at, revises: i.revises, score: i.score,
    embedding: i.embedding} END) AS instructions
}
CALL {
  OPTIONAL MATCH (a:Turn {conversation_id: $conversation_id})-[c:CONFLICTS]->(b:Turn)
  WHERE $every OR a.id IN $turn_ids OR b.id IN $turn_ids
  WITH a, c, b ORDER BY a.id, b.id
  RETURN collect(CASE WHEN c IS NULL THEN null ELSE {
    from_id: a.id, to_id: b.id, from_at: a.observed_at, to_at: b.observed_at,
    from_text: a.text, to_text: b.text, from_speaker: a.speaker, to_speaker: b.speaker,
    from_session: a.session, to_session: b.session, why: c.why, score: c.score} END) AS conflicts
}
CALL {
  UNWIND $turn_ids AS turn_id
  MATCH (t:Turn {id: turn_id, conversation_id: $conversation_id})
  RETURN collect({id: t.id, index: t.index}) AS positions
}
RETURN instructions, conflicts, positions
