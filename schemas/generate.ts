// Writes schemas/<topic>.avsc from schemas/avro/topics.ts. The .avsc files are the contract other teams
// read (and what the registry holds); topics.ts is where they are edited. `--check` fails on drift.
import { readFileSync, writeFileSync } from 'node:fs';
import { TOPIC_SCHEMAS } from './avro/topics.js';

export const avscPath = (topic: string) => new URL(`./${topic}.avsc`, import.meta.url);
export const avscText = (schema: object) => `${JSON.stringify(schema, null, 2)}\n`;

export function driftedSchemas(): string[] {
  return Object.entries(TOPIC_SCHEMAS)
    .filter(([topic, schema]) => {
      try {
        return readFileSync(avscPath(topic), 'utf8') !== avscText(schema);
      } catch {
        return true;
      }
    })
    .map(([topic]) => topic);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--check')) {
    const drifted = driftedSchemas();
    if (drifted.length) {
      console.error(`out of date: ${drifted.map((t) => `schemas/${t}.avsc`).join(', ')}; run npm run generate:schemas`);
      process.exit(1);
    }
  } else {
    for (const [topic, schema] of Object.entries(TOPIC_SCHEMAS)) writeFileSync(avscPath(topic), avscText(schema));
  }
}
