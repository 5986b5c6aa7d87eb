CREATE FULLTEXT INDEX entity_name_text IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.aliases_text]
