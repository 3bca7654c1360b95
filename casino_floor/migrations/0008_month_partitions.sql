-- Retention by partition (docs/floor.md, "Retention by partition"): the floor's large tables, the journal rows
-- (`events`, by their ts) and the rated sessions with their round lines (by the session's start), are partitioned
-- by calendar month (UTC) with PostgreSQL's declarative partitioning. A month past its retention is detached and
-- dropped (casino_floor/partitions.py): no DELETE, no dead rows, no vacuum after it. Each table has a DEFAULT
-- partition, empty as long as the months are made ahead of time: a row of a month not made yet (a table's clock
-- years off) is stored there instead of failing its batch, and moves to its month when the month is made.
--
-- Why not `rounds`, `buy_ins`, `alarms`: a partitioned table's unique keys must hold its partition key, and the
-- group's keys for them have no time (0005); a round's record may be replaced by a later one, at a later ts, so a
-- time in its key would keep both. They are a small part of the store (one row a round against 56 journal rows).
--
-- `events`' key becomes (table_id, journal, seq, ts): the ts is one of the fields the row's hash covers, so a
-- copy of a row (delivered twice, by two brokers, by a replay) has the same ts and is still kept once; a row at a
-- stored seq with another ts is another row, which the integrity check refuses before the store (off the chain).

-- The bounds of `month`'s partition of `parent` as SQL literals, by the type of its partition key: epoch seconds
-- for `events.ts` (double precision), timestamps for the others.
CREATE FUNCTION floor_month_bounds(parent text, month date, OUT key text, OUT low text, OUT high text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    first_day date := date_trunc('month', month)::date;
    key_type  text;
BEGIN
    SELECT a.attname, format_type(a.atttypid, a.atttypmod) INTO key, key_type
    FROM pg_partitioned_table p JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
    WHERE p.partrelid = parent::regclass;
    IF key_type = 'double precision' THEN
        low := extract(epoch FROM first_day::timestamp)::bigint::text;
        high := extract(epoch FROM (first_day + interval '1 month')::timestamp)::bigint::text;
    ELSE
        low := quote_literal(to_char(first_day, 'YYYY-MM-DD') || ' 00:00:00+00');
        high := quote_literal(to_char(first_day + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00');
    END IF;
END $$;

-- A partition gets its parent's replica identity (PostgreSQL does not pass it down): the group's key, casino first,
-- so an update or a delete of a published row still finds its row at the group (0005).
CREATE FUNCTION floor_partition_identity(parent text, part text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    identity text;
BEGIN
    SELECT c.relname INTO identity
    FROM pg_index pi JOIN pg_inherits i ON i.inhparent = pi.indexrelid
    JOIN pg_index ci ON ci.indexrelid = i.inhrelid JOIN pg_class c ON c.oid = ci.indexrelid
    WHERE pi.indrelid = parent::regclass AND pi.indisreplident AND ci.indrelid = part::regclass;
    IF identity IS NOT NULL THEN
        EXECUTE format('ALTER TABLE %I REPLICA IDENTITY USING INDEX %I', part, identity);
    END IF;
END $$;

-- Make `month`'s partition of each of `parents` (named <parent>_YYYY_MM) that has none; how many were made.
-- `parents` lists a table that references another before it (rated_rounds, then rated_sessions): the rows of the
-- month waiting in the default partitions are taken out in that order, then put back through the parents (their
-- new partitions) in the other, so no foreign key is broken on the way and a publication sees each moved row as a
-- delete then an insert of the same row.
CREATE FUNCTION floor_month_partitions(parents text[], month date) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    parent  text;
    part    text;
    moving  text;
    bounds  record;
    missing text[] := '{}';
BEGIN
    FOREACH parent IN ARRAY parents LOOP
        part := parent || '_' || to_char(month, 'YYYY_MM');
        CONTINUE WHEN to_regclass(part) IS NOT NULL;
        missing := missing || parent;
        bounds := floor_month_bounds(parent, month);
        moving := 'floor_moving_' || parent;
        EXECUTE format('CREATE TEMP TABLE %I (LIKE %I) ON COMMIT DROP', moving, parent);
        EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= %s AND %I < %s RETURNING *) '
                       'INSERT INTO %I SELECT * FROM moved', parent || '_default', bounds.key, bounds.low,
                       bounds.key, bounds.high, moving);
    END LOOP;
    FOR i IN REVERSE coalesce(array_upper(missing, 1), 0) .. 1 LOOP
        parent := missing[i];
        part := parent || '_' || to_char(month, 'YYYY_MM');
        bounds := floor_month_bounds(parent, month);
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s) TO (%s)', part, parent, bounds.low,
                       bounds.high);
        PERFORM floor_partition_identity(parent, part);
        EXECUTE format('INSERT INTO %I SELECT * FROM %I', parent, 'floor_moving_' || parent);
        EXECUTE format('DROP TABLE %I', 'floor_moving_' || parent);
    END LOOP;
    RETURN coalesce(array_length(missing, 1), 0);
END $$;

-- Detach and drop `month`'s partition of each of `parents` (in the order given: a referencing table first); how
-- many were dropped.
CREATE FUNCTION floor_drop_month(parents text[], month date) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    parent  text;
    part    text;
    dropped integer := 0;
BEGIN
    FOREACH parent IN ARRAY parents LOOP
        part := parent || '_' || to_char(month, 'YYYY_MM');
        CONTINUE WHEN to_regclass(part) IS NULL;
        EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', parent, part);
        EXECUTE format('DROP TABLE %I', part);
        dropped := dropped + 1;
    END LOOP;
    RETURN dropped;
END $$;

-- The journal rows.
ALTER TABLE events RENAME TO events_0007;
ALTER INDEX events_pkey RENAME TO events_0007_pkey;
CREATE TABLE events (
    table_id    text             NOT NULL,
    journal     text             NOT NULL,
    seq         bigint           NOT NULL,
    ts          double precision NOT NULL,
    kind        text             NOT NULL,
    type        text             NOT NULL,
    body        text             NOT NULL,
    prev_hash   text             NOT NULL,
    hash        text             NOT NULL,
    received_at timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, journal, seq, ts)
) PARTITION BY RANGE (ts);
CREATE TABLE events_default PARTITION OF events DEFAULT;

-- The rated sessions and their round lines.
ALTER TABLE rated_rounds RENAME TO rated_rounds_0007;
ALTER INDEX rated_rounds_pkey RENAME TO rated_rounds_0007_pkey;
ALTER INDEX rated_rounds_by_start RENAME TO rated_rounds_0007_by_start;
ALTER INDEX rated_rounds_group_key RENAME TO rated_rounds_0007_group_key;
ALTER TABLE rated_sessions RENAME TO rated_sessions_0007;
ALTER INDEX rated_sessions_pkey RENAME TO rated_sessions_0007_pkey;
ALTER INDEX rated_sessions_by_start RENAME TO rated_sessions_0007_by_start;
ALTER INDEX rated_sessions_by_player RENAME TO rated_sessions_0007_by_player;
ALTER INDEX rated_sessions_open RENAME TO rated_sessions_0007_open;
ALTER INDEX rated_sessions_group_key RENAME TO rated_sessions_0007_group_key;

CREATE TABLE rated_sessions (
    table_id          text             NOT NULL,
    session           text             NOT NULL,
    player            text,
    box               integer          NOT NULL,
    started_at        timestamptz      NOT NULL,
    ended_at          timestamptz,
    seconds_played    bigint           NOT NULL,
    rounds            bigint           NOT NULL,
    hands             bigint           NOT NULL,
    handle_cents      bigint           NOT NULL,
    average_bet_cents bigint           NOT NULL,
    buy_in_cents      bigint           NOT NULL,
    win_cents         bigint           NOT NULL,
    theo_cents        bigint           NOT NULL,
    theo_skill_cents  bigint           NOT NULL,
    edge_pct          double precision,
    skill_edge_pct    double precision,
    last_seq          bigint           NOT NULL,
    updated_at        timestamptz      NOT NULL DEFAULT now(),
    casino_id         text             NOT NULL DEFAULT '',
    PRIMARY KEY (table_id, session, started_at)
) PARTITION BY RANGE (started_at);
CREATE INDEX rated_sessions_by_start ON rated_sessions (started_at);
CREATE INDEX rated_sessions_by_player ON rated_sessions (player) WHERE player IS NOT NULL;
CREATE INDEX rated_sessions_open ON rated_sessions (table_id) WHERE ended_at IS NULL;
CREATE UNIQUE INDEX rated_sessions_group_key ON rated_sessions (casino_id, table_id, session, started_at);
ALTER TABLE rated_sessions REPLICA IDENTITY USING INDEX rated_sessions_group_key;
CREATE TABLE rated_sessions_default PARTITION OF rated_sessions DEFAULT;
SELECT floor_partition_identity('rated_sessions', 'rated_sessions_default');

CREATE TABLE rated_rounds (
    table_id         text        NOT NULL,
    session          text        NOT NULL,
    started_at       timestamptz NOT NULL,
    round_id         text        NOT NULL,
    seq              bigint      NOT NULL,
    stake_cents      bigint      NOT NULL,
    win_cents        bigint      NOT NULL,
    theo_cents       bigint      NOT NULL,
    theo_skill_cents bigint      NOT NULL,
    casino_id        text        NOT NULL DEFAULT '',
    PRIMARY KEY (table_id, session, started_at, round_id),
    FOREIGN KEY (table_id, session, started_at) REFERENCES rated_sessions (table_id, session, started_at)
        ON DELETE CASCADE
) PARTITION BY RANGE (started_at);
CREATE INDEX rated_rounds_by_start ON rated_rounds (started_at);
CREATE UNIQUE INDEX rated_rounds_group_key ON rated_rounds (casino_id, table_id, session, started_at, round_id);
ALTER TABLE rated_rounds REPLICA IDENTITY USING INDEX rated_rounds_group_key;
CREATE TABLE rated_rounds_default PARTITION OF rated_rounds DEFAULT;
SELECT floor_partition_identity('rated_rounds', 'rated_rounds_default');

-- Keep a casino's name (`group setup` set the columns' default to it).
DO $$
DECLARE
    named text := (SELECT casino_id FROM floor_casino);
BEGIN
    IF named IS NOT NULL THEN
        EXECUTE format('ALTER TABLE rated_sessions ALTER COLUMN casino_id SET DEFAULT %L', named);
        EXECUTE format('ALTER TABLE rated_rounds ALTER COLUMN casino_id SET DEFAULT %L', named);
    END IF;
END $$;

-- The months the store holds rows of (a row of a year before 2000 or after 9998 waits in the default partition),
-- then this month and the next three, each with its partitions; then the rows.
SELECT floor_month_partitions(ARRAY['events'], month) FROM (
    SELECT DISTINCT date_trunc('month', to_timestamp(ts) AT TIME ZONE 'UTC')::date FROM events_0007
    WHERE ts >= 946684800 AND ts < 253370764800) AS months (month);
SELECT floor_month_partitions(ARRAY['rated_rounds', 'rated_sessions'], month) FROM (
    SELECT DISTINCT date_trunc('month', started_at AT TIME ZONE 'UTC')::date FROM rated_sessions_0007
    WHERE started_at >= '2000-01-01 00:00:00+00' AND started_at < '9999-01-01 00:00:00+00') AS months (month);
SELECT floor_month_partitions(ARRAY['events'], month), floor_month_partitions(ARRAY['rated_rounds', 'rated_sessions'],
                                                                              month)
FROM (SELECT m::date FROM generate_series(date_trunc('month', now() AT TIME ZONE 'UTC'),
                                         date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months',
                                         interval '1 month') AS m) AS months (month);

INSERT INTO events (table_id, journal, seq, ts, kind, type, body, prev_hash, hash, received_at)
SELECT table_id, journal, seq, ts, kind, type, body, prev_hash, hash, received_at FROM events_0007;
INSERT INTO rated_sessions (table_id, session, player, box, started_at, ended_at, seconds_played, rounds, hands,
                            handle_cents, average_bet_cents, buy_in_cents, win_cents, theo_cents, theo_skill_cents,
                            edge_pct, skill_edge_pct, last_seq, updated_at, casino_id)
SELECT table_id, session, player, box, started_at, ended_at, seconds_played, rounds, hands, handle_cents,
       average_bet_cents, buy_in_cents, win_cents, theo_cents, theo_skill_cents, edge_pct, skill_edge_pct, last_seq,
       updated_at, casino_id FROM rated_sessions_0007;
INSERT INTO rated_rounds (table_id, session, started_at, round_id, seq, stake_cents, win_cents, theo_cents,
                          theo_skill_cents, casino_id)
SELECT table_id, session, started_at, round_id, seq, stake_cents, win_cents, theo_cents, theo_skill_cents, casino_id
FROM rated_rounds_0007;

-- A casino already in a group: its publication lost the tables dropped here; it publishes the new ones by their
-- root, as `group setup` makes it (the group's subscription then needs `REFRESH PUBLICATION`, docs/floor.md).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'floor_group') THEN
        ALTER PUBLICATION floor_group ADD TABLE rated_sessions, rated_rounds;
        ALTER PUBLICATION floor_group SET (publish_via_partition_root = true);
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'floor_group_replicator') THEN
        GRANT SELECT ON rated_sessions, rated_rounds TO floor_group_replicator;
    END IF;
END $$;

DROP TABLE rated_rounds_0007;
DROP TABLE rated_sessions_0007;
DROP TABLE events_0007;
