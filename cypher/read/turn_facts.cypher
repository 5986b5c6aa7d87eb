// The facts citing one turn, each with its modality, supersession key and subject entity (name
// and aliases), and the entities linked to the turn (MENTIONS, or ABOUT from a citing fact):
// what `kgmem bench cases` checks a case's `facts` constraints against.
// :param conversation_id => 'truth-04'
// :param turn_id => 'truth-04:a1'
MATCH (t:Turn {conversation_id: $conversation_id, id: $turn_id})
CALL {
  WITH t
  OPTIONAL MATCH (f:Fact)-[:CITES]->(t)
  OPTIONAL MATCH (s:Entity {id: f.subject})
  WITH f, s ORDER BY f.serial
  RETURN collect(CASE WHEN f IS NULL THEN null ELSE {
    id: f.id, text: f.text, modality: coalesce(f.modality, 'asserted'), key: f.key,
    subject: f.subject, subject_names: CASE WHEN s IS NULL THEN [] ELSE [s.name] + coalesce(s.aliases, []) END,
    informant: f.informant, reporter: f.reporter
  } END) AS facts
}
CALL {
  WITH t
  OPTIONAL MATCH (t)-[:MENTIONS]->(m:Entity)
  RETURN collect(DISTINCT m) AS mentioned
}
CALL {
  WITH t
  OPTIONAL MATCH (t)<-[:CITES]-(:Fact)-[:ABOUT]->(a:Entity)
  RETURN collect(DISTINCT a) AS about
}
WITH facts, [e IN mentioned + about WHERE e IS NOT NULL] AS linked
RETURN facts,
       reduce(acc = [], e IN linked |
         CASE WHEN e.id IN [x IN acc | x.id] THEN acc
              ELSE acc + [{id: e.id, name: e.name, type: e.type}] END) AS entities
