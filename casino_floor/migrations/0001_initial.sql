-- The floor's store: every journal row of every table once, what the questions read, the integrity alarms.
-- Applied once, in a transaction, recorded in schema_migrations (casino_floor/migrate.py).

-- Every journal row as the table published it on `events`; `body` is the canonical JSON text the chain hashes.
CREATE TABLE events (
    table_id    text             NOT NULL,
    journal     text             NOT NULL,  -- the journal id ('' for a table that publishes none)
    seq         bigint           NOT NULL,
    ts          double precision NOT NULL,
    kind        text             NOT NULL,
    type        text             NOT NULL,
    body        text             NOT NULL,
    prev_hash   text             NOT NULL,
    hash        text             NOT NULL,
    received_at timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, journal, seq)
);

-- One row per (table, journal): how far the floor holds every row and has checked the chain, and the last head.
CREATE TABLE journals (
    table_id        text             NOT NULL,
    journal         text             NOT NULL,
    first_seen      timestamptz      NOT NULL DEFAULT now(),
    contiguous_seq  bigint           NOT NULL DEFAULT 0,   -- every row 1..contiguous_seq is stored
    contiguous_hash text             NOT NULL DEFAULT repeat('0', 64),
    max_seq         bigint           NOT NULL DEFAULT 0,   -- the highest seq stored
    head_seq        bigint,
    head_hash       text,
    head_ts         double precision,
    PRIMARY KEY (table_id, journal)
);

-- The rounds (journal kind `round`: the round record), for surveillance and the shift's money.
CREATE TABLE rounds (
    table_id    text             NOT NULL,
    journal     text             NOT NULL,
    round       integer          NOT NULL,
    seq         bigint           NOT NULL,
    ts          double precision NOT NULL,
    result      text             NOT NULL,
    shoe_id     text             NOT NULL,
    started_seq bigint,
    closed_seq  bigint,
    drop_cents  bigint           NOT NULL,  -- every stake of every payout
    win_cents   bigint           NOT NULL,  -- the house's win: minus the players' net
    record      jsonb            NOT NULL,
    PRIMARY KEY (table_id, journal, round)
);
CREATE INDEX rounds_by_table_time ON rounds (table_id, ts);
CREATE INDEX rounds_by_time ON rounds (ts);

-- The tables' alarms (journal kind `alarm`).
CREATE TABLE alarms (
    table_id   text             NOT NULL,
    journal    text             NOT NULL,
    alarm_id   bigint           NOT NULL,
    seq        bigint           NOT NULL,
    ts         double precision NOT NULL,
    kind       text             NOT NULL,
    box        integer,
    round      integer          NOT NULL,
    message    text             NOT NULL,
    rule       text             NOT NULL,
    amounts    jsonb            NOT NULL,
    PRIMARY KEY (table_id, journal, alarm_id)
);
CREATE INDEX alarms_by_time ON alarms (ts);

-- Their acknowledgements (kind `alarm_cleared`), apart: one may arrive before its alarm.
CREATE TABLE alarm_clears (
    table_id   text             NOT NULL,
    journal    text             NOT NULL,
    alarm_id   bigint           NOT NULL,
    seq        bigint           NOT NULL,
    ts         double precision NOT NULL,
    cleared_by text             NOT NULL,
    PRIMARY KEY (table_id, journal, alarm_id)
);

-- The latest retained status and state of each table.
CREATE TABLE table_state (
    table_id   text        PRIMARY KEY,
    journal    text,
    state_seq  bigint,
    state      jsonb,
    status     jsonb,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- What the floor's integrity check found: a gap, a rewritten head, a truncated tail, a broken chain, a new journal.
CREATE TABLE floor_alarms (
    id         bigserial   PRIMARY KEY,
    table_id   text        NOT NULL,
    journal    text        NOT NULL,
    kind       text        NOT NULL,
    first_seq  bigint      NOT NULL,
    last_seq   bigint      NOT NULL,
    message    text        NOT NULL,
    raised_at  timestamptz NOT NULL DEFAULT now(),
    cleared_at timestamptz
);
CREATE UNIQUE INDEX floor_alarms_open ON floor_alarms (table_id, journal, kind, first_seq) WHERE cleared_at IS NULL;
CREATE INDEX floor_alarms_by_time ON floor_alarms (raised_at);
