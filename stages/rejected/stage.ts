// The dead-letter sink: fi.dlq.v1 -> rejected_messages, so an operator sees every refused message with its
// reason and raw body (`faultline rejected`). Idempotent on (message_id, stage).
import type pg from 'pg';
import { TOPICS } from '../../schemas/avro/topics.js';
import type { DeadLetter } from '../../schemas/avro/values.js';
import type { Stage, StageResult } from '../runtime/stage.js';

export async function storeRejected(pool: pg.Pool, letters: readonly DeadLetter[]): Promise<void> {
  if (letters.length === 0) return;
  // Postgres text cannot hold NUL. Every text column is cleaned, not only the body: the IMEI a hostile
  // message claims (its Kafka key) may carry one too, and one such letter would fail its batch forever.
  // Everything else is kept byte for byte.
  const clean = (s: string | null) => s?.replaceAll('\u0000', '\uFFFD') ?? null;
  const col = (k: 'messageId' | 'source' | 'stage' | 'imei' | 'code' | 'reason' | 'body' | 'topic' | 'detail') => letters.map((l) => clean(l[k] ?? null));
  await pool.query(
    `insert into rejected_messages (message_id, source, stage, imei, code, reason, body, rejected_at, topic, detail)
       select m, s, st, i, c, r, b, to_timestamp(t / 1000.0), tp, d
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::text[], $10::text[])
           as x(m, s, st, i, c, r, b, t, tp, d)
     on conflict (message_id, stage) do nothing`,
    [col('messageId'), col('source'), col('stage'), col('imei'), col('code'), col('reason'), col('body'), letters.map((l) => l.rejectedAt), col('topic'), col('detail')],
  );
}

export function rejectedStage({ pool }: { pool: pg.Pool }): Stage<DeadLetter> {
  return {
    name: 'rejected',
    input: TOPICS.dlq,
    outputs: [],
    async handle(batch): Promise<StageResult> {
      await storeRejected(pool, batch.messages.map((m) => m.value));
      return { produce: [], deadLetters: [] };
    },
  };
}
