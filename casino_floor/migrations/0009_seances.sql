-- The séances (issue 33; docs/accounts.md): each table's SeanceUpdated events, a step of a séance each (opened, a
-- fill or credit asked or confirmed, a buy-in, a tip, orphan chips, an identity recorded, closed) with the séance's
-- figures after it. A séance's figures are its newest step's; the registers read them with that step's seq and
-- hash (the journal head they were made from) and the day it opened (casino_floor/seances.py).

CREATE TABLE seance_steps (
    table_id          text             NOT NULL,
    journal           text             NOT NULL,
    seq               bigint           NOT NULL,  -- the SeanceUpdated row
    ts                double precision NOT NULL,
    hash              text             NOT NULL,  -- the row's chain hash
    seance            integer          NOT NULL,
    action            text             NOT NULL,
    opener_cents      bigint           NOT NULL,
    fills_cents       bigint           NOT NULL,
    credits_cents     bigint           NOT NULL,
    drop_cash_cents   bigint           NOT NULL,
    drop_marker_cents bigint           NOT NULL,
    tips_cents        bigint           NOT NULL,
    orphans_cents     bigint           NOT NULL,
    closer_cents      bigint,                     -- null until the close
    win_cents         bigint,
    PRIMARY KEY (table_id, journal, seq)
);
CREATE INDEX seance_steps_by_seance ON seance_steps (table_id, journal, seance, seq);
CREATE INDEX seance_steps_by_time ON seance_steps (ts);

-- Séances a table published before the floor knew them are in `events` already: derived now, as the store does.
INSERT INTO seance_steps (table_id, journal, seq, ts, hash, seance, action, opener_cents, fills_cents, credits_cents,
                          drop_cash_cents, drop_marker_cents, tips_cents, orphans_cents, closer_cents, win_cents)
SELECT table_id, journal, seq, ts, hash, (body::jsonb ->> 'seance')::integer, coalesce(body::jsonb ->> 'action', ''),
       coalesce((body::jsonb ->> 'opener_cents')::bigint, 0), coalesce((body::jsonb ->> 'fills_cents')::bigint, 0),
       coalesce((body::jsonb ->> 'credits_cents')::bigint, 0),
       coalesce((body::jsonb ->> 'drop_cash_cents')::bigint, 0),
       coalesce((body::jsonb ->> 'drop_marker_cents')::bigint, 0),
       coalesce((body::jsonb ->> 'tips_cents')::bigint, 0), coalesce((body::jsonb ->> 'orphans_cents')::bigint, 0),
       (body::jsonb ->> 'closer_cents')::bigint, (body::jsonb ->> 'win_cents')::bigint
FROM events WHERE kind = 'event' AND type = 'SeanceUpdated' AND jsonb_typeof(body::jsonb -> 'seance') = 'number'
ON CONFLICT DO NOTHING;
