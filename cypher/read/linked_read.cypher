// The whole linked read path in ONE round trip, scoped inside every index to one conversation
// or to all conversations of one owner (one ranking over the owner's threads), and to the
// search filters: seeds -> bounded expansion -> the best citing fact of every candidate -> the
// keyed facts that current-value resolution needs. A generator with k = 0 (or no input)
// contributes nothing. Cosines are raw, in [-1, 1] (vector index scores and
// vector.similarity.cosine are (1 + cos) / 2). Returns ONE row of seven lists and a version:
//   seeds     one map per (generator, turn): the turn, its cosine, and what it matched
//     dense_turns  top-$k_turns turns, vector index filtered by scope (and filters) inside it; every
//                  vector SEARCH here asks the (approximate, HNSW) index for twice the pool and
//                  keeps the best: recall@40 against an exact scan 0.999 -> 1.000 in a
//                  50,000-turn conversation at no measurable cost (kgmem bench scale)
//     dense_facts  top-$k_facts facts (of fact sources $q.sources, null = all) the same way,
//                  each with the turns it cites
//     dense_passages  the turns of the top-$k_turns passages of long turns (kgmem.ingest.extraction.passages),
//                  passage vector index filtered by conversation inside it, the turn's other
//                  filters after; a turn's cosine is its best passage's
//     speaker      top-$k_speaker turns spoken by each of $q.named_speakers (the speakers the
//                  question names), vector index filtered by tenant and speaker inside it
//     fulltext     BM25 top-$k_fulltext turns and facts; $q.ft_query is the Lucene query of the
//                  question's words AND the tenant token (+tk:<token>^0, a filter that adds no score), so the tenant's every
//                  matching node is eligible whatever other tenants hold
//     entity       turns that MENTION, or are cited by confident facts ABOUT, $q.entity_ids
//     window       turns said in, or dated by facts into, [$q.start, $q.end)
//   expanded  <= $k_events turns sharing an Event with the best 10 seed facts (best = cosine +
//             $w_fact * fact cosine)
//   citing    per candidate turn, its best citing fact (max cosine to the question)
//   keyed     for current/past-value questions: facts on a supersession key about
//             $q.current_entity_ids (with object and modality; none valid only after $q.as_of)
//             with the turns they cite (the input of deterministic resolution)
//   turns     the turns that keyed facts cite, so winners can join the pool
//   passages  per candidate turn that has passages, its best passage (cosine, n, start, end:
//             character offsets into the turn's text), the number of its passages (count) and
//             its head's cosine (head: the turn's own vector, of its first passage); the turn's
//             dense score weighs these (kgmem.retrieve.generators.with_passage)
//   holder    when a person is named ($k_holder > 0): the facts nearest the question with who
//             holds each (subject, speaker), for answerability's holder gap
//   context_version  the Conversation node's write version (null if it has none; for an owner,
//             the owned Conversations' ids and versions as read/owner_context joins them): the caller
//             compares it with the version of the planner context it used (one round trip
//             when nothing changed; see Engine._context)
// Scope and filters (kgmem.retrieve.scope): every turn any part returns has
//   owner = $q.owner, conversation_id IN $q.conversation_ids, speaker IN $q.speakers,
//   session IN $q.sessions, source_kind IN $q.kinds and $q.from <= observed_at <= $q.to.
// Inside the vector index, every SEARCH is filtered by conversation_id IN $q.conversation_ids
// (a conversation has one owner, so this is the tenant; the owner is checked again on every
// row). When $q.bounded (a filter or a moment of asking is set) the turn SEARCHes also apply the
// filters inside the index; Neo4j accepts only conjunctions of equality / IN / range there (no
// OR, no "$x IS NULL OR"), so the two cases are two SEARCH clauses of which one runs, and an
// unset filter is passed as its widest value (every speaker and session of the scope, every
// kind, open time bounds); $q.to is also the moment of asking ($q.as_of) when one is given.
// Without a bound the widest values restrict nothing but cost a clause each (a 50,000-turn
// conversation's session list made that the largest part of its read). BM25 is scoped to the
// owner or conversation inside Lucene ($q.ft_query's tenant token) and asks Lucene for $ft_limit hits
// (more than $k_fulltext when a filter is set) before the other filters; the graph parts
// (entity, window, events, keyed facts) filter before their limits.
// $q.as_of (a datetime or null) additionally hides facts valid only after it (keyed facts).
// $q holds every value whose type or size varies between questions (the scope, the filters,
// strings, lists, values that may be null); the other parameters are integers, floats and the
// question's embedding. Neo4j keys its plan cache on each parameter's type and, for a string
// or a list, its size bucket (0, 1, <= 10, <= 100, ...), so as separate parameters these
// compiled many plans of this statement (0.3-0.6 s each after a server start); a map
// parameter has one type whatever it holds, so every question shares one plan
// (kgmem.retrieve.generators.linked_read_parameters).
// Returned datetimes (observed_at, event_time, event_end, valid_from) are ISO 8601 strings
// (stored values are UTC): the Python driver hydrates a DateTime in ~0.1 ms, which made
// hydration the largest single cost of this statement (measured on the LoCoMo dev split).
// :param q => {owner: '', conversation_ids: ['conv-26'], owner_scope: false, speakers: ['Caroline',
//   'Melanie'], sessions: [1, 2, 3], kinds: ['chat', 'document', 'facts'], `from`:
//   datetime('0001-01-01T00:00:00Z'), `to`: datetime('9999-12-31T23:59:59Z'), sources: null,
//   ft_query: '+tk:123^0 +text:(support group)', ft_fact_query: '+tk:123^0 +text:(support group)',
//   named_speakers: [], entity_ids: [], start: null, end: null, current_entity_ids: [], as_of:
//   null, holder_conversation_ids: ['conv-26'], bounded: false}
// :param ft_limit => 10
// :param embedding => [0.1, ...]
// :param k_turns => 40
// :param k_facts => 20
// :param k_fulltext => 10
// :param k_speaker => 0
// :param k_entity => 0
// :param min_confidence => 0.5
// :param k_window => 0
// :param k_events => 0
// :param w_fact => 1.0
// :param k_holder => 0
CYPHER 25
CALL () {
  CALL () {
    WITH 1 AS go WHERE $k_turns > 0 AND NOT $q.bounded
    MATCH (t:Turn)
      SEARCH t IN (VECTOR INDEX turn_embedding FOR $embedding
                   WHERE t.conversation_id IN $q.conversation_ids
                   LIMIT 2 * $k_turns) SCORE AS s
    RETURN t, s
    UNION ALL
    WITH 1 AS go WHERE $k_turns > 0 AND $q.bounded
    MATCH (t:Turn)
      SEARCH t IN (VECTOR INDEX turn_embedding FOR $embedding
                   WHERE t.conversation_id IN $q.conversation_ids
                     AND t.speaker IN $q.speakers AND t.session IN $q.sessions
                     AND t.source_kind IN $q.kinds AND t.observed_at >= $q.from
                     AND t.observed_at <= $q.to
                   LIMIT 2 * $k_turns) SCORE AS s
    RETURN t, s
  }
  WITH t, s ORDER BY s DESC, t.id ASC LIMIT $k_turns
  RETURN 'dense_turns' AS generator, t, 2.0 * s - 1.0 AS cosine, null AS f, null AS fact_cosine,
         null AS bm25, null AS via
  UNION ALL
  CALL () {
    WITH 1 AS go WHERE $k_turns > 0
    MATCH (p:Passage)
      SEARCH p IN (VECTOR INDEX passage_embedding FOR $embedding
                   WHERE p.conversation_id IN $q.conversation_ids
                   LIMIT 2 * $k_turns) SCORE AS s
    MATCH (p)-[:OF]->(t:Turn)
    WITH t, max(s) AS s
    ORDER BY s DESC, t.id ASC LIMIT $k_turns
    RETURN t, s
  }
  RETURN 'dense_passages' AS generator, t, 2.0 * s - 1.0 AS cosine, null AS f,
         null AS fact_cosine, null AS bm25, null AS via
  UNION ALL
  CALL () {
    CALL () {
      WITH 1 AS go WHERE $k_facts > 0 AND $q.sources IS NULL
      MATCH (f:Fact)
        SEARCH f IN (VECTOR INDEX fact_embedding FOR $embedding
                     WHERE f.conversation_id IN $q.conversation_ids
                     LIMIT 2 * $k_facts) SCORE AS s
      RETURN f, s
      UNION ALL
      UNWIND CASE WHEN $k_facts > 0 THEN coalesce($q.sources, []) ELSE [] END AS source
      CALL (source) {
        MATCH (f:Fact)
          SEARCH f IN (VECTOR INDEX fact_embedding FOR $embedding
                       WHERE f.conversation_id IN $q.conversation_ids
                         AND f.source = source
                       LIMIT 2 * $k_facts) SCORE AS s
        RETURN f, s
      }
      RETURN f, s
    }
    WITH f, s ORDER BY s DESC, f.id ASC LIMIT $k_facts
    RETURN f, 2.0 * s - 1.0 AS fact_cosine
  }
  MATCH (f)-[:CITES]->(t:Turn)
  RETURN 'dense_facts' AS generator, t,
         2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine,
         f, fact_cosine, null AS bm25, null AS via
  UNION ALL
  UNWIND CASE WHEN $k_speaker > 0 THEN $q.named_speakers ELSE [] END AS speaker
  CALL (speaker) {
    CALL (speaker) {
      WITH 1 AS go WHERE NOT $q.bounded
      MATCH (t:Turn)
        SEARCH t IN (VECTOR INDEX turn_embedding FOR $embedding
                     WHERE t.conversation_id IN $q.conversation_ids
                       AND t.speaker = speaker
                     LIMIT 2 * $k_speaker) SCORE AS s
      RETURN t, s
      UNION ALL
      WITH 1 AS go WHERE $q.bounded
      MATCH (t:Turn)
        SEARCH t IN (VECTOR INDEX turn_embedding FOR $embedding
                     WHERE t.conversation_id IN $q.conversation_ids
                       AND t.speaker = speaker AND t.session IN $q.sessions
                       AND t.source_kind IN $q.kinds AND t.observed_at >= $q.from
                       AND t.observed_at <= $q.to
                     LIMIT 2 * $k_speaker) SCORE AS s
      RETURN t, s
    }
    WITH t, s ORDER BY s DESC, t.id ASC LIMIT $k_speaker
    RETURN t, s
  }
  RETURN 'speaker' AS generator, t, 2.0 * s - 1.0 AS cosine, null AS f, null AS fact_cosine,
         null AS bm25, null AS via
  UNION ALL
  WITH 1 AS go WHERE $q.ft_query IS NOT NULL AND $k_fulltext > 0
  CALL db.index.fulltext.queryNodes('turn_text', $q.ft_query, {limit: $ft_limit})
    YIELD node AS t, score
  WHERE t.owner = $q.owner AND t.conversation_id IN $q.conversation_ids AND t.speaker IN $q.speakers
    AND t.session IN $q.sessions AND t.source_kind IN $q.kinds AND t.observed_at >= $q.from
    AND t.observed_at <= $q.to
  WITH t, score ORDER BY score DESC, t.id ASC LIMIT $k_fulltext
  RETURN 'fulltext' AS generator, t,
         2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine,
         null AS f, null AS fact_cosine, score AS bm25, null AS via
  UNION ALL
  WITH 1 AS go WHERE $q.ft_fact_query IS NOT NULL AND $k_fulltext > 0
  CALL db.index.fulltext.queryNodes('fact_text', $q.ft_fact_query, {limit: $ft_limit})
    YIELD node AS f, score
  WHERE f.owner = $q.owner AND f.conversation_id IN $q.conversation_ids
  MATCH (f)-[:CITES]->(t:Turn)
  WHERE t.owner = $q.owner AND t.conversation_id IN $q.conversation_ids AND t.speaker IN $q.speakers
    AND t.session IN $q.sessions AND t.source_kind IN $q.kinds AND t.observed_at >= $q.from
    AND t.observed_at <= $q.to
  WITH f, score, collect(t) AS cited ORDER BY score DESC, f.id ASC LIMIT $k_fulltext
  UNWIND cited AS t
  RETURN 'fulltext' AS generator, t,
         2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine,
         f, 2.0 * vector.similarity.cosine(f.embedding, $embedding) - 1.0 AS fact_cosine,
         score AS bm25, null AS via
  UNION ALL
  UNWIND CASE WHEN $k_entity > 0 THEN $q.entity_ids ELSE [] END AS entity_id
  MATCH (e:Entity {id: entity_id})
  WHERE e.conversation_id IN $q.conversation_ids
  CALL (e) {
    MATCH (e)<-[:MENTIONS]-(t:Turn)
    RETURN t
    UNION
    MATCH (e)<-[:ABOUT]-(f:Fact)-[:CITES]->(t:Turn)
    WHERE f.confidence >= $min_confidence
    RETURN t
  }
  WITH t, collect(DISTINCT e.id) AS via
  WHERE t.owner = $q.owner AND t.conversation_id IN $q.conversation_ids AND t.speaker IN $q.speakers
    AND t.session IN $q.sessions AND t.source_kind IN $q.kinds AND t.observed_at >= $q.from
    AND t.observed_at <= $q.to
  WITH t, via, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
  ORDER BY cosine DESC, t.index ASC
  LIMIT $k_entity
  RETURN 'entity' AS generator, t, cosine, null AS f, null AS fact_cosine, null AS bm25, via
  UNION ALL
  WITH 1 AS go WHERE $q.start IS NOT NULL AND $k_window > 0
  CALL () {
    MATCH (t:Turn)
    WHERE t.conversation_id IN $q.conversation_ids
      AND t.observed_at >= $q.start AND t.observed_at < $q.end
    RETURN t
    UNION
    MATCH (f:Fact)-[:CITES]->(t:Turn)
    WHERE f.conversation_id IN $q.conversation_ids
      AND f.event_time IS NOT NULL AND f.event_time < $q.end
      AND coalesce(f.event_end, f.event_time) > $q.start
    RETURN t
  }
  WITH t WHERE t.owner = $q.owner AND t.conversation_id IN $q.conversation_ids AND t.speaker IN $q.speakers
    AND t.session IN $q.sessions AND t.source_kind IN $q.kinds AND t.observed_at >= $q.from
    AND t.observed_at <= $q.to
  WITH t, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
  ORDER BY cosine DESC, t.index ASC
  LIMIT $k_window
  RETURN 'window' AS generator, t, cosine, null AS f, null AS fact_cosine, null AS bm25,
         null AS via
}
WITH generator, t, cosine, f, fact_cosine, bm25, via
WHERE t.owner = $q.owner AND t.conversation_id IN $q.conversation_ids AND t.speaker IN $q.speakers
  AND t.session IN $q.sessions AND t.source_kind IN $q.kinds AND t.observed_at >= $q.from
  AND t.observed_at <= $q.to
WITH collect({generator: generator, t: t, cosine: cosine, f: f, fact_cosine: fact_cosine,
              bm25: bm25, via: via}) AS rows
WITH rows, [r IN rows | r.t] AS pool
// --- bounded, typed expansion from the best seeds --------------------------------------------
CALL (rows, pool) {
  WITH rows, pool WHERE $k_events > 0
  UNWIND rows AS r
  WITH pool, r WHERE r.f IS NOT NULL
  WITH pool, r.f AS seed, max(r.cosine + $w_fact * r.fact_cosine) AS rank
  ORDER BY rank DESC, seed.id ASC
  LIMIT 10
  MATCH (seed)-[:MEMBER_OF]->(ev:Event)<-[:MEMBER_OF]-(f:Fact)-[:CITES]->(t:Turn)
  WHERE f.confidence >= $min_confidence AND NOT t IN pool
    AND t.owner = $q.owner AND t.conversation_id IN $q.conversation_ids AND t.speaker IN $q.speakers
    AND t.session IN $q.sessions AND t.source_kind IN $q.kinds AND t.observed_at >= $q.from
    AND t.observed_at <= $q.to
  WITH t, min(ev.id) AS event_id
  WITH t, event_id, 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS cosine
  ORDER BY cosine DESC, t.index ASC
  LIMIT $k_events
  RETURN collect({generator: 'events', t: t, cosine: cosine, event_id: event_id}) AS by_events
}
WITH rows, by_events AS expanded
// --- keyed facts for current-value resolution, and the turns they cite -----------------------
CALL () {
  // anchored on the entities (unique-id seek, then their ABOUT {role: 'subject'} edges): the
  // cost grows with what is said about them, not with the conversation. Every writer links a
  // fact to its subject entity this way (write/merge_facts), so f.subject = id implies the edge.
  UNWIND $q.current_entity_ids AS entity_id
  MATCH (:Entity {id: entity_id})<-[:ABOUT {role: 'subject'}]-(f:Fact)
  WHERE f.conversation_id IN $q.conversation_ids AND f.key IS NOT NULL
    AND ($q.as_of IS NULL OR f.valid_from IS NULL OR f.valid_from <= $q.as_of)
  WITH DISTINCT f
  OPTIONAL MATCH (f)-[:CITES]->(t:Turn)
  WHERE t.owner = $q.owner AND t.conversation_id IN $q.conversation_ids AND t.speaker IN $q.speakers
    AND t.session IN $q.sessions AND t.source_kind IN $q.kinds AND t.observed_at >= $q.from
    AND t.observed_at <= $q.to
  WITH f, collect(t) AS cited
  WHERE size(cited) > 0
  ORDER BY f.key, f.serial
  RETURN collect({fact_id: f.id, key: f.key, serial: f.serial,
                  valid_from: toString(f.valid_from), text: f.text, object: f.object,
                  modality: coalesce(f.modality, 'asserted'), cites: [c IN cited | c.id]}) AS keyed,
         reduce(acc = [], c IN collect(cited) | acc + c) AS keyed_turns
}
// --- who holds what the question asks (answerability's holder gap) ---------------------------
// the $k_holder facts of any modality of $q.holder_conversation_ids (every thread of the scope,
// whatever the filters) closest to the question, each with the person entity it is about (null
// if none), the speaker of the turn it cites (the first by name), its cosine, and its text,
// modality and embedding (the trained answerability decision reads them); facts valid
// only after $q.as_of are invisible (kgmem.retrieve.answerable.holder_gap). $k_holder = 0 (no
// person named) reads nothing.
CALL () {
  WITH 1 AS go WHERE $k_holder > 0
  MATCH (f:Fact)
    SEARCH f IN (VECTOR INDEX fact_embedding FOR $embedding
                 WHERE f.conversation_id IN $q.holder_conversation_ids
                 LIMIT 2 * $k_holder) SCORE AS s
  WITH f, s
  WHERE $q.as_of IS NULL OR f.valid_from IS NULL OR f.valid_from <= $q.as_of
  WITH f, s ORDER BY s DESC, f.id ASC LIMIT $k_holder
  OPTIONAL MATCH (e:Entity {id: f.subject, type: 'person'})
  OPTIONAL MATCH (f)-[:ABOUT {role: 'subject'}]->(p:Entity {type: 'person'})
  WITH f, s, e, collect(p.id) AS about
  OPTIONAL MATCH (f)-[:CITES]->(t:Turn)
  WITH f, s, coalesce(e.id, head(about)) AS subject, min(t.speaker) AS speaker
  ORDER BY s DESC, f.id ASC
  RETURN collect({fact_id: f.id, conversation_id: f.conversation_id, subject: subject,
                  speaker: speaker, cosine: 2.0 * s - 1.0, text: f.text,
                  modality: f.modality, embedding: f.embedding}) AS holder
}
// --- the best citing fact of every candidate turn ------------------------------------------
WITH rows, expanded, keyed, keyed_turns, holder,
     [r IN rows | r.t] + [x IN expanded | x.t] + keyed_turns AS every
CALL (every) {
  UNWIND every AS t
  WITH DISTINCT t
  MATCH (t)<-[:CITES]-(f:Fact)
  WHERE $q.sources IS NULL OR f.source IN $q.sources
  WITH t, f, 2.0 * vector.similarity.cosine(f.embedding, $embedding) - 1.0 AS fact_cosine
  ORDER BY fact_cosine DESC, f.id ASC
  WITH t, collect({fact_id: f.id, fact_cosine: fact_cosine, event_time: toString(f.event_time),
                   event_end: toString(f.event_end), event_granularity: f.event_granularity,
                   event_phrase: f.event_phrase})[0] AS best
  RETURN collect(best {.*, turn_id: t.id}) AS citing
}
// --- the best passage of every candidate turn that has passages (a long turn) -----------------
CALL (every) {
  UNWIND every AS t
  WITH DISTINCT t
  MATCH (p:Passage)-[:OF]->(t)
  WITH t, p, 2.0 * vector.similarity.cosine(p.embedding, $embedding) - 1.0 AS cosine
  ORDER BY cosine DESC, p.n ASC
  WITH t, collect({cosine: cosine, n: p.n, start: p.start, end: p.end}) AS ranked
  WITH t, ranked[0] AS best, size(ranked) AS count,
       2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0 AS head
  RETURN collect(best {.*, turn_id: t.id, count: count, head: head}) AS passages
}
WITH rows, expanded, keyed, citing, holder, passages,
     [t IN keyed_turns | t {turn_id: t.id, .text, .speaker, .session, .index, .conversation_id,
      .source,
      observed_at: toString(t.observed_at),
      cosine: 2.0 * vector.similarity.cosine(t.embedding, $embedding) - 1.0}] AS turns
// a memory-request turn (Turn.request, kgmem.ingest.requests.rules) is never an answer
RETURN
  [r IN rows WHERE r.t.request IS NULL | {generator: r.generator, turn_id: r.t.id, text: r.t.text, speaker: r.t.speaker,
                conversation_id: r.t.conversation_id, source: r.t.source,
                session: r.t.session, index: r.t.index, observed_at: toString(r.t.observed_at),
                cosine: r.cosine, fact_id: r.f.id, fact_cosine: r.fact_cosine,
                event_time: toString(r.f.event_time), bm25: r.bm25, via: r.via}] AS seeds,
  [x IN expanded WHERE x.t.request IS NULL | {generator: x.generator, turn_id: x.t.id, text: x.t.text,
                    conversation_id: x.t.conversation_id, source: x.t.source,
                    speaker: x.t.speaker, session: x.t.session, index: x.t.index,
                    observed_at: toString(x.t.observed_at), cosine: x.cosine,
                    event_id: x.event_id}] AS expanded,
  citing, keyed, turns, holder, passages,
  CASE WHEN $q.owner_scope
    THEN reduce(v = '', p IN COLLECT { MATCH (c:Conversation {owner: $q.owner}) WITH c ORDER BY c.id
                                       RETURN c.id + '=' + coalesce(c.version, '') } | v + p + ';')
    ELSE head(COLLECT { MATCH (c:Conversation {id: head($q.conversation_ids)}) RETURN c.version })
  END AS context_version
