// One Conversation node per tenant: its `version` is a fresh UUID after every write that changes what the
// planner caches (turns, entities), so a reader can tell in one lookup whether its cache is
// stale (read/conversation_version). Unique, so concurrent MERGEs cannot duplicate it.
CREATE CONSTRAINT conversation_id IF NOT EXISTS FOR (c:Conversation) REQUIRE c.id IS UNIQUE
