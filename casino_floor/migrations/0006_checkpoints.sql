-- One table state (issue 29): the tables' sealed checkpoints, off the feed's `checkpoints` topic, so that the
-- floor's round record starts from the newest one before the round instead of the journal's first row. Stored as
-- the table sealed them (the state as its canonical JSON text, the seal over those bytes); checked again when read
-- (the seal, and the chain hash against the stored row). A lost one costs its reader the rows back to an older one.

CREATE TABLE checkpoints (
    table_id    text        NOT NULL,
    journal     text        NOT NULL,
    seq         bigint      NOT NULL,  -- the row after which the state was sealed
    chain_hash  text        NOT NULL,  -- that row's hash
    state       text        NOT NULL,
    seal        text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, journal, seq)
);
