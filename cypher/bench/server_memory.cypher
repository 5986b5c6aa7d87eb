// The server's configured heap and page cache, for benchmark reports (`kgmem bench scale`):
// what the server runs with, whatever the client's settings say.
SHOW SETTINGS YIELD name, value
WHERE name IN ['server.memory.heap.max_size', 'server.memory.pagecache.size']
RETURN name, value
