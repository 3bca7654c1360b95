-- The group (docs/floor.md, "The group"): the compact facts a casino's floor replicates into the group's database by
-- PostgreSQL's logical replication carry the casino they come from. `casino_id` is '' until `table-floor group setup`
-- names the casino (it sets the columns' default and fills the rows stored before); the raw journal rows (`events`)
-- stay in the casino and carry none.
--
-- Each replicated table gets a unique key with the casino first: the group's primary key is that key (tables of two
-- casinos may share an id, T01), and the casino's replica identity is the same key, so an UPDATE or a DELETE (a round
-- replaced by a later record, a session updated, an alarm cleared, the retention) finds its row at the group.

CREATE TABLE floor_casino (
    only_one  boolean PRIMARY KEY DEFAULT true CHECK (only_one),
    casino_id text    NOT NULL,
    named_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE rounds ADD COLUMN casino_id text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX rounds_group_key ON rounds (casino_id, table_id, journal, round);
ALTER TABLE rounds REPLICA IDENTITY USING INDEX rounds_group_key;

ALTER TABLE buy_ins ADD COLUMN casino_id text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX buy_ins_group_key ON buy_ins (casino_id, table_id, journal, seq);
ALTER TABLE buy_ins REPLICA IDENTITY USING INDEX buy_ins_group_key;

ALTER TABLE alarms ADD COLUMN casino_id text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX alarms_group_key ON alarms (casino_id, table_id, journal, alarm_id);
ALTER TABLE alarms REPLICA IDENTITY USING INDEX alarms_group_key;

ALTER TABLE alarm_clears ADD COLUMN casino_id text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX alarm_clears_group_key ON alarm_clears (casino_id, table_id, journal, alarm_id);
ALTER TABLE alarm_clears REPLICA IDENTITY USING INDEX alarm_clears_group_key;

ALTER TABLE rated_sessions ADD COLUMN casino_id text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX rated_sessions_group_key ON rated_sessions (casino_id, table_id, session, started_at);
ALTER TABLE rated_sessions REPLICA IDENTITY USING INDEX rated_sessions_group_key;

ALTER TABLE rated_rounds ADD COLUMN casino_id text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX rated_rounds_group_key ON rated_rounds (casino_id, table_id, session, started_at, round_id);
ALTER TABLE rated_rounds REPLICA IDENTITY USING INDEX rated_rounds_group_key;

-- The journals' signed prefixes: a table with a head key counts a row only once a signed head covers it
-- (queries.COUNTED), at the group as at the casino.
ALTER TABLE journals ADD COLUMN casino_id text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX journals_group_key ON journals (casino_id, table_id, journal);
ALTER TABLE journals REPLICA IDENTITY USING INDEX journals_group_key;

ALTER TABLE floor_alarms ADD COLUMN casino_id text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX floor_alarms_group_key ON floor_alarms (casino_id, id);
ALTER TABLE floor_alarms REPLICA IDENTITY USING INDEX floor_alarms_group_key;
