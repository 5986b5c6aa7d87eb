// Canonical typed entities. Bumps the Conversation's version (the planner caches entity names).
// $rows: [{id, conversation_id, scope, thread, owner, name, type, aliases, aliases_text}]
// `scope` is the node's conversation_id: the conversation itself, or 'owner:<owner>' for an
// entity shared by all of an owner's threads (kgmem.ingest.writing.threads; `owner` set, null
// otherwise). A conversation's own entity takes the aliases written now; a shared entity keeps
// which thread gave each alias (`alias_from`: '<thread>\t<alias>'), its aliases are the union
// over its threads, and a thread's entry is replaced when that thread writes it again.
// Only the writing conversation's version is bumped: bumping the owner's other threads would
// take their write locks (the Conversation node is the lock) while holding this one's, in no
// fixed order. An owner search sees the change (its version joins every thread's); a cached
// one-thread context of another thread learns the new aliases at that thread's next write.
// The MERGE key includes the scope (the unique constraint is on id alone): an id that another
// conversation or owner already holds fails the batch with a constraint error instead of
// silently moving that tenant's node here.
UNWIND $rows AS row
MERGE (e:Entity {id: row.id, conversation_id: row.scope})
SET e.name = row.name,
    e.type = row.type,
    e.owner = row.owner
WITH e, row,
     CASE WHEN row.owner IS NULL THEN null
          ELSE [x IN coalesce(e.alias_from, []) WHERE NOT x STARTS WITH row.thread + '\t']
               + [a IN row.aliases | row.thread + '\t' + a]
     END AS sources
WITH e, row, sources,
     CASE WHEN sources IS NULL THEN row.aliases
          ELSE reduce(acc = [], x IN sources |
                 CASE WHEN substring(x, size(split(x, '\t')[0]) + 1) IN acc THEN acc
                      ELSE acc + substring(x, size(split(x, '\t')[0]) + 1) END)
     END AS aliases
SET e.alias_from = sources,
    e.aliases = aliases,
    e.aliases_text = CASE WHEN sources IS NULL THEN row.aliases_text
                          ELSE reduce(s = '', a IN aliases | s + CASE WHEN s = '' THEN '' ELSE ' ' END + a)
                     END
WITH DISTINCT row.thread AS thread
MERGE (c:Conversation {id: thread})
SET c.version = randomUUID()
