// One hop of a relation chain: every fact of the given relations whose subject is one of
// $entity_ids, with its object entity, serial, whether a newer fact supersedes it, and the
// turns it cites. The chain operator takes the newest value per (subject, relation) first.
// :param conversation_id => 'factconsolidation_mh_6k'
// :param entity_ids => ['factconsolidation_mh_6k:e:person:victoria-beckham']
// :param relations => ['spouse', 'citizenship']
MATCH (s:Entity)<-[:ABOUT {role: 'subject'}]-(f:Fact)-[:ABOUT {role: 'object'}]->(o:Entity)
WHERE s.id IN $entity_ids AND f.conversation_id = $conversation_id
  AND f.relation IN $relations
RETURN f.id AS fact_id, s.id AS subject, f.relation AS relation, o.id AS object,
       o.name AS object_name, f.serial AS serial, f.text AS text,
       EXISTS { (f)<-[:SUPERSEDES]-(:Fact) } AS superseded,
       [(f)-[:CITES]->(t:Turn) | t.id] AS cites
ORDER BY subject, relation, serial DESC
