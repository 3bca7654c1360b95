-- The tables' lifetime meters (issue 35): each snapshot a table journals (its `meters` rows: a séance closed, a
-- gaming day ended, a RAM clear; table_runtime/core/meters_snapshots.py), stored as the table wrote it, with the
-- headline meters as columns for the questions the floor asks (`table-floor query meters`).

CREATE TABLE meters (
    table_id         text             NOT NULL,
    journal          text             NOT NULL,
    seq              bigint           NOT NULL,  -- the meters row
    ts               double precision NOT NULL,
    reason           text             NOT NULL,  -- seance_closed | day_end | journal_closed | journal_cleared
    day              text             NOT NULL,  -- the gaming day (YYYY-MM-DD, from 06:00 UTC)
    seance           integer,                    -- seance_closed: the séance's number
    employee         text,                       -- a RAM clear's: who cleared the journal (an id, never a name)
    handle_cents     bigint           NOT NULL,
    win_cents        bigint           NOT NULL,
    drop_cents       bigint           NOT NULL,
    rounds           bigint           NOT NULL,
    meters           jsonb            NOT NULL,  -- every meter and each box's, as the row holds them
    PRIMARY KEY (table_id, journal, seq)
);
CREATE INDEX meters_by_time ON meters (ts);
CREATE INDEX meters_by_day ON meters (day);

-- Snapshots a table published before the floor knew them are in `events` already: derived now, as the store does.
INSERT INTO meters (table_id, journal, seq, ts, reason, day, seance, employee, handle_cents, win_cents, drop_cents,
                    rounds, meters)
SELECT table_id, journal, seq, ts, body::jsonb ->> 'reason', coalesce(body::jsonb ->> 'day', ''),
       (body::jsonb ->> 'seance')::integer, body::jsonb ->> 'employee',
       coalesce((body::jsonb -> 'meters' ->> 'handle_cents')::bigint, 0),
       coalesce((body::jsonb -> 'meters' ->> 'win_cents')::bigint, 0),
       coalesce((body::jsonb -> 'meters' ->> 'drop_cents')::bigint, 0),
       coalesce((body::jsonb -> 'meters' ->> 'rounds')::bigint, 0), body::jsonb -> 'meters'
FROM events WHERE kind = 'meters' AND jsonb_typeof(body::jsonb -> 'meters') = 'object'
ON CONFLICT DO NOTHING;
