-- When each device's clock last moved (wall time, the notify transaction's): with the clock's newest check-in it
-- tells whether the pipeline is making progress, so silence is judged at that progress while it does and at
-- now - SILENCE_LAG_BOUND_MINUTES once it has stopped (domain/checkin-clock.ts silenceAsOf;
-- docs/decisions.md#silence-judged-against-the-pipelines-progress). Not indexed: the communication-lost scan
-- reads every clock row each tick anyway, and an index would end the clock upsert's HOT updates.
alter table checkin_clock add column stored_at timestamptz not null default now();
