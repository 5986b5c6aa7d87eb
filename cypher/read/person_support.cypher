// What memory asserts, for answerability (kgmem.retrieve.answerable): every asserted or
// negated fact whose subject is a person, with that person's entity id (kind 'fact'), and the
// text of every turn except turns whose every fact is a plan, hypothetical, question or report
// (kind 'turn'; a turn with no fact counts) and memory-request turns (Turn.request: a request
// is never evidence); of those left out, a turn with a plan among its facts is kind 'plan' (it
// answers questions about the present or future, not about the past). Facts carry their attribute and thing (kgmem.ingest.extraction.attributes). Facts
// and turns observed after $as_of (if given) are invisible.
// $conversation_ids: one conversation, or all of an owner's (an owner search).
// :param conversation_ids => ['conv-26']
// :param as_of => null
CALL {
  MATCH (t:Turn)
  WHERE t.conversation_id IN $conversation_ids
    AND ($as_of IS NULL OR t.observed_at <= $as_of)
    AND t.request IS NULL
    AND NOT (
      EXISTS { MATCH (t)<-[:CITES]-(:Fact) }
      AND NOT EXISTS {
        MATCH (t)<-[:CITES]-(g:Fact)
        WHERE coalesce(g.modality, 'asserted') IN ['asserted', 'negated', 'planned']
      }
    )
  RETURN CASE
           WHEN EXISTS { MATCH (t)<-[:CITES]-(:Fact) }
            AND NOT EXISTS {
              MATCH (t)<-[:CITES]-(g:Fact)
              WHERE coalesce(g.modality, 'asserted') IN ['asserted', 'negated']
            } THEN 'plan'
           ELSE 'turn'
         END AS kind, null AS subject, t.text AS text, null AS attribute, null AS thing
  UNION ALL
  MATCH (f:Fact)
  WHERE f.conversation_id IN $conversation_ids AND coalesce(f.modality, 'asserted') IN ['asserted', 'negated']
    AND ($as_of IS NULL OR f.valid_from IS NULL OR f.valid_from <= $as_of)
  OPTIONAL MATCH (s:Entity {id: f.subject, type: 'person'})
  OPTIONAL MATCH (f)-[:ABOUT {role: 'subject'}]->(p:Entity {type: 'person'})
  WITH f, coalesce(s.id, p.id) AS subject
  WHERE subject IS NOT NULL
  RETURN DISTINCT 'fact' AS kind, subject, f.text AS text, f.attribute AS attribute,
         f.thing AS thing
}
RETURN kind, subject, text, attribute, thing
