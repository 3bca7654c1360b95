-- Hostile input (issue 30): what the floor refuses is set aside, never lost and never counted.
-- `quarantine`: a message PostgreSQL could not hold as it came (a seq or an amount past bigint, text with U+0000, a
-- message too large): the service goes on with the others. `evidence`: a row that is not its table's word (it names
-- another table than its topic, its hash is not the hash of its fields, it is off the chain, or a head signed by
-- its table contradicts it): kept for the investigation, never in `events`, never in the money.
-- The payload is the message as received, as text: invalid UTF-8 as \x.. escapes, U+0000 as \u0000.

CREATE TABLE quarantine (
    id          bigserial   PRIMARY KEY,
    table_id    text        NOT NULL,  -- the table its topic names
    topic       text        NOT NULL,
    reason      text        NOT NULL,
    payload     text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX quarantine_by_table ON quarantine (table_id, received_at);

CREATE TABLE evidence (
    id          bigserial   PRIMARY KEY,
    table_id    text        NOT NULL,  -- the table its topic names
    journal     text        NOT NULL,
    seq         bigint,
    kind        text        NOT NULL,  -- misrouted | hash_mismatch | off_chain | contradicted | bad_signature
    reason      text        NOT NULL,
    payload     text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX evidence_by_table ON evidence (table_id, received_at);

-- How far a head signed by the table covers its journal: rows 1..signed_seq are the table's own word and count in
-- the money. NULL: the floor holds no key for the table (its rows count as they arrive, as before).
ALTER TABLE journals ADD COLUMN signed_seq bigint;
ALTER TABLE journals ADD COLUMN signed_hash text;

-- The journal rows `table-floor ratings forget` rewrote to erase a pseudonym (GDPR art. 17): their hash no longer
-- matches their body, on purpose; `query verify` checks their links and names them instead of calling them altered.
-- No pseudonym is kept here.
CREATE TABLE forgotten_rows (
    table_id     text        NOT NULL,
    journal      text        NOT NULL,
    seq          bigint      NOT NULL,
    forgotten_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, journal, seq)
);
