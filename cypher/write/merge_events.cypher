// Events grouping the facts that describe one happening: (:Fact)-[:MEMBER_OF]->(:Event).
// $rows: [{id, conversation_id, name, time, time_end, granularity, fact_ids}]
UNWIND $rows AS row
MERGE (ev:Event {id: row.id})
SET ev.conversation_id = row.conversation_id,
    ev.name = row.name,
    ev.time = row.time,
    ev.time_end = row.time_end,
    ev.granularity = row.granularity
WITH ev, row
UNWIND row.fact_ids AS fact_id
MATCH (f:Fact {id: fact_id})
MERGE (f)-[:MEMBER_OF]->(ev)
