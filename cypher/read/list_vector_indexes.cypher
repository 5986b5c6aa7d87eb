// kgmem's search indexes as they exist: vector (dimension, quantization, indexed properties:
// the embedding then the filter properties of WITH [...]) and fulltext (indexed properties,
// analyzer),
// for the schema checks of `kgmem schema apply`.
SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options
WHERE type IN ['VECTOR', 'FULLTEXT']
RETURN name, type, labelsOrTypes, properties,
       options.indexConfig['vector.dimensions'] AS dimensions,
       options.indexConfig['vector.quantization.type'] AS quantization,
       options.indexConfig['fulltext.analyzer'] AS analyzer
