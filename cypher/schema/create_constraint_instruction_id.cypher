// One node per standing instruction or preference (kgmem.ingest.extraction.standing).
CREATE CONSTRAINT instruction_id IF NOT EXISTS FOR (i:Instruction) REQUIRE i.id IS UNIQUE
