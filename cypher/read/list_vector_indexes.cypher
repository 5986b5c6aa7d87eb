// The vector indexes and their configured dimensions (for the SchemaMismatch check).
SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, options
RETURN name, labelsOrTypes, properties, options.indexConfig['vector.dimensions'] AS dimensions
