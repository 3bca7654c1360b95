-- Rated sessions (issue 23): what the tables publish on `{prefix}/tables/{tableId}/ratings` (docs/floor.md,
-- "Player ratings"), kept for the pit, `table-floor query ratings` and the retention of `[ratings] retention_days`.
-- The player is a pseudonym (an HMAC keyed by the casino's secret); the floor never sees a card number.

-- One row per rated session, upserted by (table_id, session, started_at): a message replaces the row only with a seq
-- as high. The start is in the key because the session id is the journal seq of its first row: a table whose
-- journal starts again (a new journal id) numbers its sessions from the start again.
CREATE TABLE rated_sessions (
    table_id          text             NOT NULL,
    session           text             NOT NULL,  -- the table's id of the session: T01-<journal seq of its start>
    player            text,                       -- the pseudonym; NULL: anonymous, rated by box
    box               integer          NOT NULL,  -- the box now (a player may move)
    started_at        timestamptz      NOT NULL,
    ended_at          timestamptz,                -- NULL while the session is open
    seconds_played    bigint           NOT NULL,  -- seated, pauses excluded
    rounds            bigint           NOT NULL,
    hands             bigint           NOT NULL,
    handle_cents      bigint           NOT NULL,
    average_bet_cents bigint           NOT NULL,
    buy_in_cents      bigint           NOT NULL,
    win_cents         bigint           NOT NULL,  -- the player's net (+ = the player won)
    theo_cents        bigint           NOT NULL,
    theo_skill_cents  bigint           NOT NULL,
    edge_pct          double precision,
    skill_edge_pct    double precision,
    last_seq          bigint           NOT NULL,  -- the journal seq of the row behind the message stored
    updated_at        timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, session, started_at)
);
CREATE INDEX rated_sessions_by_start ON rated_sessions (started_at);
CREATE INDEX rated_sessions_by_player ON rated_sessions (player) WHERE player IS NOT NULL;
CREATE INDEX rated_sessions_open ON rated_sessions (table_id) WHERE ended_at IS NULL;

-- One line per settled round a session had a stake in; erased with its session.
CREATE TABLE rated_rounds (
    table_id         text   NOT NULL,
    session          text   NOT NULL,
    started_at       timestamptz NOT NULL,  -- its session's start (the session's key)
    round_id         text   NOT NULL,
    seq              bigint NOT NULL,
    stake_cents      bigint NOT NULL,
    win_cents        bigint NOT NULL,  -- the player's net on the round
    theo_cents       bigint NOT NULL,
    theo_skill_cents bigint NOT NULL,
    PRIMARY KEY (table_id, session, started_at, round_id),
    FOREIGN KEY (table_id, session, started_at) REFERENCES rated_sessions (table_id, session, started_at)
        ON DELETE CASCADE
);
CREATE INDEX rated_rounds_by_start ON rated_rounds (started_at);
