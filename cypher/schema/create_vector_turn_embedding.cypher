// Dense seeds over turns. $dimensions = the embedder's output size (384 for all-MiniLM-L6-v2).
CREATE VECTOR INDEX turn_embedding IF NOT EXISTS FOR (t:Turn) ON (t.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
