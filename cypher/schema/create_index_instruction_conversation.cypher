// Instructions are read per conversation on every search (kgmem.retrieve.standing).
CREATE INDEX instruction_conversation IF NOT EXISTS FOR (i:Instruction) ON (i.conversation_id)
