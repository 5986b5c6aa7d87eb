// The id of a forgotten turn is remembered once (Memory.forget_turns is idempotent).
CREATE CONSTRAINT forgotten_turn_id IF NOT EXISTS FOR (g:ForgottenTurn) REQUIRE g.id IS UNIQUE
