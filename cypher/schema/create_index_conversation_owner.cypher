// Owner -> its conversations (Memory.search owner=, forget_owner, the owner's context).
CREATE INDEX conversation_owner IF NOT EXISTS FOR (c:Conversation) ON (c.owner)
