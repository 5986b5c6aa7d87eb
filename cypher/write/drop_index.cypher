// Drop one index by name (kgmem passes only its own index names; used by
// `kgmem schema apply --rebuild` to replace indexes of an older layout).
// :param name => 'turn_text'
DROP INDEX $name IF EXISTS
