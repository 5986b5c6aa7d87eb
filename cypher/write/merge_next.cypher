// The timeline: (:Turn)-[:NEXT]->(:Turn) in utterance order. $rows: [{prev, next}]
UNWIND $rows AS row
MATCH (a:Turn {id: row.prev}), (b:Turn {id: row.next})
MERGE (a)-[:NEXT]->(b)
