// Reads the fixtures of test/fixtures/ (never edited by tests; support/checkins.ts names the folder). Test-only I/O.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURES_DIR as FIXTURES_URL } from '../../support/checkins.js';

export const FIXTURES_DIR = fileURLToPath(FIXTURES_URL);

/** Message file names in processing order (001, 002, ...). */
export function messageFiles(): string[] {
  return readdirSync(join(FIXTURES_DIR, 'messages')).filter((f) => f.endsWith('.json')).sort();
}

export function messageBody(file: string): string {
  return readFileSync(join(FIXTURES_DIR, 'messages', file), 'utf8');
}

export function fixtureJson(name: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, name), 'utf8'));
}

/** One row of expected.json; fields are optional, as in the file. */
export interface ExpectedRow {
  file: string;
  imei?: string;
  ActualOngoingFault?: number;
  events?: number;
  dm1_events?: number;
  records?: number;
  duplicate?: boolean;
  model?: string;
  shifted?: { EventID: number; EventTimestamp: string };
  PermanentFaultResetCurrentThreshold?: number;
  PrefaultCurrent_api?: number;
  FaultCurrent_api?: string;
  PostEventRef?: string;
  events_total_for_device?: number;
  unregistered?: string;
  records_stored?: number;
  visible_in_api?: boolean;
  rejected?: string;
}

export function expectedRows(): ExpectedRow[] {
  return fixtureJson('expected.json') as ExpectedRow[];
}

export function expectedFor(file: string): ExpectedRow {
  const row = expectedRows().find((r) => r.file === file);
  if (!row) throw new Error(`expected.json has no row for ${file}`);
  return row;
}
