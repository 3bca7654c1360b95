-- The dealers' work (issue 34): each dealer's stint at a table, from the table's `DealerWork` status rows (journaled
-- when a stint ends: his logout, or the next dealer's push; table_runtime/staff/dealer_work.py). The employee id
-- only: the floor never holds a name or a badge number.

CREATE TABLE dealer_work (
    table_id          text             NOT NULL,
    journal           text             NOT NULL,
    seq               bigint           NOT NULL,  -- the DealerWork row
    ts                double precision NOT NULL,
    employee          text             NOT NULL,
    since             double precision NOT NULL,  -- the stint's login
    until             double precision,           -- its logout or push
    seconds           double precision NOT NULL,
    seconds_in_rounds double precision NOT NULL,
    rounds            integer          NOT NULL,
    hands             integer          NOT NULL,
    box_rounds        integer          NOT NULL,
    errors            jsonb            NOT NULL,  -- kind -> count: refused, undo, manual_card, wrong_payout, bank_draw
    error_count       integer          NOT NULL,
    PRIMARY KEY (table_id, journal, seq)
);
CREATE INDEX dealer_work_by_time ON dealer_work (since);
CREATE INDEX dealer_work_by_employee ON dealer_work (employee);

-- Stints a table published before the floor knew them are in `events` already: derived now, as the store does.
INSERT INTO dealer_work (table_id, journal, seq, ts, employee, since, until, seconds, seconds_in_rounds, rounds, hands,
                         box_rounds, errors, error_count)
SELECT table_id, journal, seq, ts, body::jsonb ->> 'employee', (body::jsonb ->> 'since')::double precision,
       (body::jsonb ->> 'until')::double precision, (body::jsonb ->> 'seconds')::double precision,
       coalesce((body::jsonb ->> 'seconds_in_rounds')::double precision, 0), (body::jsonb ->> 'rounds')::integer,
       coalesce((body::jsonb ->> 'hands')::integer, 0), coalesce((body::jsonb ->> 'box_rounds')::integer, 0),
       coalesce(body::jsonb -> 'errors', '{}'::jsonb),
       coalesce((SELECT sum(value::integer) FROM jsonb_each_text(body::jsonb -> 'errors')), 0)::integer
FROM events WHERE kind = 'status' AND type = 'DealerWork' AND jsonb_typeof(body::jsonb -> 'rounds') = 'number'
ON CONFLICT DO NOTHING;
