// The non-speaker entities that the given facts are ABOUT (hop 1 → resolved nodes for hop 2).
// :param fact_ids => ['conv-26:x:D1:3:0']
// :param speakers => ['Caroline', 'Melanie']
MATCH (f:Fact)-[a:ABOUT]->(e:Entity)
WHERE f.id IN $fact_ids AND NOT e.name IN $speakers AND e.type <> 'date'
RETURN f.id AS fact_id, e.id AS entity_id, e.name AS name, e.type AS type, a.role AS role,
       f.relation AS relation
