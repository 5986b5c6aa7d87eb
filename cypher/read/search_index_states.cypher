// The state of some indexes (ONLINE, POPULATING, FAILED) and how far each is populated; a
// search waits until kgmem's search indexes are ONLINE (kgmem.store.schema.await_search_indexes).
// :param names => ['turn_embedding', 'turn_text']
SHOW INDEXES YIELD name, state, populationPercent
WHERE name IN $names
RETURN name, state, populationPercent AS percent
ORDER BY name
