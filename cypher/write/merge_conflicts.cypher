// Two asserted user statements of one conversation that conflict (kgmem.ingest.extraction.standing):
// from the negated statement to the other, with why and the relation decision's probability.
// $rows: [{from, to, why, score}]
UNWIND $rows AS row
MATCH (a:Turn {id: row.from, conversation_id: $conversation_id})
MATCH (b:Turn {id: row.to, conversation_id: $conversation_id})
MERGE (a)-[c:CONFLICTS]->(b)
SET c.why = row.why, c.score = row.score
