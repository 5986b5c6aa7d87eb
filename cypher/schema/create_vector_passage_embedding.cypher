// Dense seeds over the passages of long turns (kgmem.ingest.extraction.passages), filtered INSIDE the
// index by conversation (the tenant); the passage's turn is then checked against the owner and
// the search filters like every other row of read/linked_read. Same options as turn_embedding.
// $dimensions = the embedder's output size (384 for all-MiniLM-L6-v2).
CYPHER 25
CREATE VECTOR INDEX passage_embedding IF NOT EXISTS FOR (p:Passage) ON p.embedding
WITH [p.conversation_id]
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.type`: 'NONE',
                       `vector.default_search_expansion_factor`: 3.0}}
