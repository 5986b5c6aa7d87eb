// Dense seeds over facts, filtered by owner, conversation (and fact source) INSIDE the index; see
// create_vector_turn_embedding. $dimensions = the embedder's output size.
CYPHER 25
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:Fact) ON f.embedding
WITH [f.conversation_id, f.owner, f.source]
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine',
                       `vector.quantization.type`: 'NONE',
                       `vector.default_search_expansion_factor`: 3.0}}
