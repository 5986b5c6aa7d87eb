// (newer)-[:SUPERSEDES]->(older) on the same supersession key. The older fact is kept, with
// valid_to = the newer fact's valid_from (or unchanged if the newer has none). Never deletes.
// $rows: [{newer, older}]
UNWIND $rows AS row
MATCH (n:Fact {id: row.newer}), (o:Fact {id: row.older})
WHERE n.conversation_id = o.conversation_id  // never across tenants
MERGE (n)-[:SUPERSEDES]->(o)
SET o.valid_to = coalesce(n.valid_from, o.valid_to)
