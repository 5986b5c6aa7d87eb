// What the planner needs to know about a conversation — its speakers (first to speak first) with
// the roles stored on their turns (`kgmem.roles`; a speaker without one has an empty list), its
// canonical entities (names and aliases, for resolving names in questions; in an owned
// conversation also the owner's shared entities, kgmem.ingest.writing.threads) and its latest
// timestamp ("now"), its session numbers and its owner ('' for none; the search filters of
// read/linked_read need all of them), whether any turn carries metadata (kgmem.metadata) and
// whether it holds standing instructions or conflicts (kgmem.ingest.extraction.standing): a search reads
// those only where there are some — but only when the caller's cached copy is stale: `version` is the
// Conversation node's write version (a fresh UUID after every turn or entity write); when it
// equals $known_version the context columns are null and the cache stays. One index lookup
// when nothing changed.
// :param conversation_id => 'conv-26'
// :param known_version => null
OPTIONAL MATCH (c:Conversation {id: $conversation_id})
WITH c.version AS version, coalesce(c.owner, '') AS owner
CALL (version, owner) {
  WITH version WHERE version IS NOT NULL AND version = $known_version
  RETURN null AS speakers, null AS roles, null AS latest, null AS entities, null AS sessions,
         null AS metadata, null AS standing, false AS changed
  UNION ALL
  WITH version WHERE version IS NULL OR $known_version IS NULL OR version <> $known_version
  CALL () {
    MATCH (t:Turn {conversation_id: $conversation_id})
    WITH t.speaker AS speaker, min(t.index) AS first, collect(DISTINCT t.role) AS roles
    ORDER BY first
    RETURN collect(speaker) AS speakers, collect({speaker: speaker, roles: roles}) AS roles
  }
  CALL () {
    MATCH (t:Turn {conversation_id: $conversation_id})
    WITH max(t.observed_at) AS latest, collect(DISTINCT t.session) AS sessions,
         count(CASE WHEN any(k IN keys(t) WHERE k STARTS WITH 'meta_') THEN 1 END) > 0
           AS metadata
    RETURN latest, sessions, metadata
  }
  CALL () {
    RETURN EXISTS { MATCH (:Instruction {conversation_id: $conversation_id}) }
           OR EXISTS { MATCH (:Turn {conversation_id: $conversation_id})-[:CONFLICTS]-() }
           AS standing
  }
  CALL (owner) {
    CALL (owner) {
      MATCH (e:Entity {conversation_id: $conversation_id}) RETURN e
      UNION
      MATCH (e:Entity {owner: owner}) RETURN e
    }
    RETURN collect({id: e.id, name: e.name, type: e.type,
                    aliases: coalesce(e.aliases, [])}) AS entities
  }
  RETURN speakers, roles, latest, entities, sessions, metadata, standing, true AS changed
}
RETURN version, changed, speakers, roles, latest, entities, sessions, metadata, standing, owner,
       [$conversation_id] AS conversation_ids
