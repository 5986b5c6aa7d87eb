// What the planner needs to know about all conversations of one owner taken together (see
// read/conversation_context): their ids, speakers (first to speak first within the turn index,
// so threads interleave), roles, entities, latest timestamp, session numbers and whether any
// turn carries metadata or any standing instruction or conflict is held, only when the
// caller's cached copy is stale. `version` joins every owned Conversation's id and write version
// (ordered by id), so a write to any of them or a new conversation of the owner changes it;
// read/linked_read returns the same string.
// :param owner => 'alice'
// :param known_version => null
OPTIONAL MATCH (c:Conversation {owner: $owner})
WITH c ORDER BY c.id
WITH collect(c.id) AS ids,
     reduce(v = '', p IN collect(c.id + '=' + coalesce(c.version, '')) | v + p + ';') AS version
CALL (version, ids) {
  WITH version WHERE version = $known_version
  RETURN null AS speakers, null AS roles, null AS latest, null AS entities, null AS sessions,
         null AS metadata, null AS standing, false AS changed
  UNION ALL
  WITH ids, version WHERE $known_version IS NULL OR version <> $known_version
  CALL (ids) {
    MATCH (t:Turn) WHERE t.conversation_id IN ids
    WITH t.speaker AS speaker, min(t.index) AS first, collect(DISTINCT t.role) AS roles
    ORDER BY first, speaker
    RETURN collect(speaker) AS speakers, collect({speaker: speaker, roles: roles}) AS roles
  }
  CALL (ids) {
    MATCH (t:Turn) WHERE t.conversation_id IN ids
    WITH max(t.observed_at) AS latest, collect(DISTINCT t.session) AS sessions,
         count(CASE WHEN any(k IN keys(t) WHERE k STARTS WITH 'meta_') THEN 1 END) > 0
           AS metadata
    RETURN latest, sessions, metadata
  }
  CALL (ids) {
    RETURN EXISTS { MATCH (i:Instruction) WHERE i.conversation_id IN ids }
           OR EXISTS { MATCH (t:Turn)-[:CONFLICTS]-() WHERE t.conversation_id IN ids }
           AS standing
  }
  CALL (ids) {
    CALL (ids) {
      MATCH (e:Entity) WHERE e.conversation_id IN ids RETURN e
      UNION
      MATCH (e:Entity {owner: $owner}) RETURN e
    }
    RETURN collect({id: e.id, name: e.name, type: e.type,
                    aliases: coalesce(e.aliases, [])}) AS entities
  }
  RETURN speakers, roles, latest, entities, sessions, metadata, standing, true AS changed
}
RETURN version, changed, speakers, roles, latest, entities, sessions, metadata, standing,
       $owner AS owner,
       ids AS conversation_ids
