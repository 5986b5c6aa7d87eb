// Every Turn has a unique id (<conversation_id>:<dia_id>).
CREATE CONSTRAINT turn_id IF NOT EXISTS FOR (t:Turn) REQUIRE t.id IS UNIQUE
