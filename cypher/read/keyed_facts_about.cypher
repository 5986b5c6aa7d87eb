// Facts on a supersession key whose subject is one of $entity_ids (or whose subject string is
// one of them), with the turns they cite: the input of deterministic current-value resolution.
// :param conversation_id => 'conv-26'
// :param entity_ids => ['conv-26:e:person:caroline']
MATCH (f:Fact {conversation_id: $conversation_id})
WHERE f.key IS NOT NULL
  AND (f.subject IN $entity_ids OR EXISTS {
        MATCH (f)-[:ABOUT {role: 'subject'}]->(e:Entity) WHERE e.id IN $entity_ids })
OPTIONAL MATCH (f)-[:CITES]->(t:Turn)
RETURN f.id AS fact_id, f.key AS key, f.serial AS serial, f.valid_from AS valid_from,
       f.text AS text, collect(t.id) AS cites
ORDER BY f.key, f.serial
