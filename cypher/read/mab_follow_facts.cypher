// One hop: every fact whose subject is one of $entity_ids (optionally only $relations), every
// version, newest first per (subject, relation); `latest` is true for the newest serial of its
// key. The resolver takes the latest version and falls back to older ones only on a dead end.
// :param conversation_id => 'factconsolidation_sh_6k'
// :param entity_ids => ['factconsolidation_sh_6k:entity:twitter']
// :param relations => null
MATCH (s:Entity)<-[:ABOUT {role: 'subject'}]-(f:Fact)-[:ABOUT {role: 'object'}]->(o:Entity)
WHERE s.id IN $entity_ids AND f.conversation_id = $conversation_id
  AND ($relations IS NULL OR f.relation IN $relations)
RETURN f.id AS fact_id, s.id AS subject, f.relation AS relation, o.id AS object,
       o.name AS object_name, f.serial AS serial,
       NOT EXISTS { (f)<-[:SUPERSEDES]-(:Fact) } AS latest
ORDER BY subject, relation, serial DESC
