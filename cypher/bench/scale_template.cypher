// Everything `kgmem bench scale` copies from one stored conversation to build synthetic tenants
// (kgmem/bench/scale/generator.py): its sessions, turns (with embeddings, in utterance order), facts (with
// embeddings, the turns they cite and the entities they are ABOUT), entities, mentions, events
// (with their member facts) and SUPERSEDES pairs. Returns ONE row of seven lists.
// :param conversation_id => 'conv-26'
CALL () {
  MATCH (s:Session {conversation_id: $conversation_id})
  WITH s ORDER BY s.session
  RETURN collect({session: s.session, started_at: s.started_at}) AS sessions
}
CALL () {
  MATCH (t:Turn {conversation_id: $conversation_id})
  WITH t ORDER BY t.index
  RETURN collect({id: t.id, session: t.session, index: t.index, dia_id: t.dia_id,
                  speaker: t.speaker, text: t.text, observed_at: t.observed_at,
                  embedding: t.embedding}) AS turns
}
CALL () {
  MATCH (f:Fact {conversation_id: $conversation_id})
  WITH f ORDER BY f.serial, f.id
  RETURN collect(f {.id, .subject, .relation, .object, .text, .source, .event_time, .event_end,
                    .event_granularity, .event_phrase, .valid_from, .key, .serial, .confidence,
                    .session, .embedding,
                    cites: [(f)-[:CITES]->(t:Turn) | t.id],
                    about: [(f)-[a:ABOUT]->(e:Entity) | {entity_id: e.id, role: a.role}]})
         AS facts
}
CALL () {
  // its own entities, and the owner's shared entities it uses (kgmem.ingest.writing.threads)
  CALL () {
    MATCH (e:Entity {conversation_id: $conversation_id}) RETURN e
    UNION
    MATCH (:Turn {conversation_id: $conversation_id})-[:MENTIONS]->(e:Entity)
    WHERE e.owner IS NOT NULL
    RETURN e
    UNION
    MATCH (:Fact {conversation_id: $conversation_id})-[:ABOUT]->(e:Entity)
    WHERE e.owner IS NOT NULL
    RETURN e
  }
  WITH e ORDER BY e.id
  RETURN collect(e {.id, .name, .type, .owner, aliases: coalesce(e.aliases, [])}) AS entities
}
CALL () {
  MATCH (t:Turn {conversation_id: $conversation_id})-[:MENTIONS]->(e:Entity)
  RETURN collect([t.id, e.id]) AS mentions
}
CALL () {
  MATCH (ev:Event {conversation_id: $conversation_id})
  WITH ev ORDER BY ev.id
  RETURN collect(ev {.id, .name, .time, .time_end, .granularity,
                     fact_ids: [(f:Fact)-[:MEMBER_OF]->(ev) | f.id]}) AS events
}
CALL () {
  MATCH (n:Fact {conversation_id: $conversation_id})-[:SUPERSEDES]->(o:Fact)
  RETURN collect([n.id, o.id]) AS supersedes
}
RETURN sessions, turns, facts, entities, mentions, events, supersedes
