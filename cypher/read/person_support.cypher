// What memory holds about the persons a question names, for answerability: the texts of
// asserted or negated facts whose subject is one of $entity_ids, and turns spoken by $names
// except turns whose every fact is a plan, hypothetical, question or report (a turn with no
// fact at all counts). Facts and turns observed after $as_of (if given) are invisible.
// :param conversation_id => 'conv-26'
// :param entity_ids => ['conv-26:e:person:caroline']
// :param names => ['Caroline']
// :param as_of => null
CALL {
  MATCH (t:Turn {conversation_id: $conversation_id})
  WHERE t.speaker IN $names AND ($as_of IS NULL OR t.observed_at <= $as_of)
    AND NOT (
      EXISTS { MATCH (t)<-[:CITES]-(:Fact) }
      AND NOT EXISTS {
        MATCH (t)<-[:CITES]-(g:Fact)
        WHERE coalesce(g.modality, 'asserted') IN ['asserted', 'negated']
      }
    )
  RETURN t.text AS text
  UNION ALL
  MATCH (f:Fact {conversation_id: $conversation_id})
  WHERE coalesce(f.modality, 'asserted') IN ['asserted', 'negated']
    AND ($as_of IS NULL OR f.valid_from IS NULL OR f.valid_from <= $as_of)
    AND (f.subject IN $entity_ids OR EXISTS {
          MATCH (f)-[:ABOUT {role: 'subject'}]->(e:Entity) WHERE e.id IN $entity_ids })
  RETURN f.text AS text
}
RETURN text
