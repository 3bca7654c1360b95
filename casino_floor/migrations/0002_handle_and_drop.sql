-- Drop means drop (docs/floor.md "Money"). Until now `rounds.drop_cents` held the sum of every stake: that is the
-- handle. It keeps its values under its right name; the drop (what went into the table's drop box: the cash and
-- markers exchanged for chips at the table) is the tables' buy-ins, stored from their BuyInRecorded events.

ALTER TABLE rounds RENAME COLUMN drop_cents TO handle_cents;
COMMENT ON COLUMN rounds.handle_cents IS 'the handle: every stake of every payout (called drop_cents before 0002)';

-- The buy-ins (journal kind `event`, type `BuyInRecorded`): the table's drop.
CREATE TABLE buy_ins (
    table_id  text             NOT NULL,
    journal   text             NOT NULL,
    seq       bigint           NOT NULL,
    ts        double precision NOT NULL,
    round     integer          NOT NULL,  -- the table's round then (0 before the first)
    cents     bigint           NOT NULL,
    tender    text             NOT NULL,  -- cash | marker
    box       integer,
    player    text             NOT NULL,  -- a rated player's id, '' when not given
    by_role   text             NOT NULL,  -- who recorded it: dealer | supervisor
    PRIMARY KEY (table_id, journal, seq)
);
CREATE INDEX buy_ins_by_time ON buy_ins (ts);

-- Buy-ins a table published before the floor knew them are in `events` already: derived now, as the store does.
INSERT INTO buy_ins (table_id, journal, seq, ts, round, cents, tender, box, player, by_role)
SELECT table_id, journal, seq, ts, coalesce((body::jsonb ->> 'round')::integer, 0), (body::jsonb ->> 'cents')::bigint,
       coalesce(body::jsonb ->> 'tender', 'cash'), (body::jsonb ->> 'box')::integer,
       coalesce(body::jsonb ->> 'player', ''), coalesce(body::jsonb ->> 'by', '')
FROM events WHERE kind = 'event' AND type = 'BuyInRecorded' AND jsonb_typeof(body::jsonb -> 'cents') = 'number'
ON CONFLICT DO NOTHING;
