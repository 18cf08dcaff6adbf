// The schemas earlier releases wrote, kept as schemas/released/<topic>/<version>.avsc, and the rule every
// schema change must keep (docs/decisions.md#schema-evolution): this release reads records written by EVERY
// released version (BACKWARD_TRANSITIVE), because a replay re-reads whatever the log retains. Checked by
// `npm test` (test/schemas/released.test.ts) with avsc's resolver, and on the registry by
// test/integration/infra/schema-evolution.test.ts.
//
// `node --import tsx schemas/released.ts --release` adds the current schema of each topic as its next released
// version when it differs from the last one (run when cutting a release).
import avro from 'avsc';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import type { AvroSchema } from './avro/records.js';
import { TOPIC_SCHEMAS } from './avro/topics.js';

export interface ReleasedSchema { version: number; schema: AvroSchema }

const RELEASED = new URL('./released/', import.meta.url);
const dirOf = (topic: string) => new URL(`./${topic}/`, RELEASED);

/** The released versions of a topic's schema, oldest first (none when the topic was never released). */
export function releasedVersions(topic: string): ReleasedSchema[] {
  const dir = dirOf(topic);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => /^(\d+)\.avsc$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), schema: JSON.parse(readFileSync(new URL(m[0], dir), 'utf8')) as AvroSchema }))
    .sort((a, b) => a.version - b.version);
}

/**
 * Released versions whose records `current` cannot read, each with avsc's reason (a field added without a
 * default, a type changed, a record renamed without an alias...). Empty: `current` reads them all.
 */
export function unreadableVersions(current: AvroSchema, released: readonly ReleasedSchema[]): { version: number; reason: string }[] {
  const reader = avro.Type.forSchema(current as avro.Schema);
  return released.flatMap(({ version, schema }) => {
    try {
      reader.createResolver(avro.Type.forSchema(schema as avro.Schema));
      return [];
    } catch (err) {
      return [{ version, reason: (err as Error).message }];
    }
  });
}

/** Every pipeline topic's problems: never released, or unable to read a released version. Empty: all is well. */
export function releaseProblems(schemas: Readonly<Record<string, AvroSchema>> = TOPIC_SCHEMAS): string[] {
  return Object.entries(schemas).flatMap(([topic, schema]) => {
    const released = releasedVersions(topic);
    if (released.length === 0) return [`${topic}: no released version in schemas/released/${topic}/ (run node --import tsx schemas/released.ts --release)`];
    return unreadableVersions(schema, released).map(({ version, reason }) =>
      `${topic}: the current schema cannot read records of released version ${version} (schemas/released/${topic}/${version}.avsc): ${reason}. ` +
      'Add fields as optional with a default; a breaking change is a new topic (.v2)');
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = releaseProblems();
  if (problems.length) {
    for (const p of problems.filter((x) => !x.includes('no released version'))) console.error(p);
    if (problems.some((x) => !x.includes('no released version'))) process.exit(1);
  }
  if (process.argv.includes('--release')) {
    for (const [topic, schema] of Object.entries(TOPIC_SCHEMAS)) {
      const released = releasedVersions(topic);
      const text = `${JSON.stringify(schema, null, 2)}\n`;
      const last = released.at(-1);
      if (last && `${JSON.stringify(last.schema, null, 2)}\n` === text) continue;
      mkdirSync(dirOf(topic), { recursive: true });
      const version = (last?.version ?? 0) + 1;
      writeFileSync(new URL(`${version}.avsc`, dirOf(topic)), text);
      console.log(`schemas/released/${topic}/${version}.avsc`);
    }
  }
}
