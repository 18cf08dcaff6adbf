// Builders of pipeline records for stage tests: a fixture message taken through validation, with the
// envelope fields each stage adds set to plain defaults that a test overrides.
import { readFileSync, readdirSync } from 'node:fs';
import { parseQueueMessage } from '../domain/validate-message.js';
import type { CheckIn } from '../domain/checkin.js';
import type { ComputedCheckIn } from '../schemas/avro/values.js';

/** The repository's own fixtures (test/fixtures/README.md says what each file is), as a directory URL. */
export const FIXTURES_DIR = new URL('../test/fixtures/', import.meta.url);
export const fixtureText = (name: string) => readFileSync(new URL(`messages/${name}`, FIXTURES_DIR), 'utf8');
export const fixtureNames = () => readdirSync(new URL('messages/', FIXTURES_DIR)).filter((f) => f.endsWith('.json')).sort();
export const importFixture = () => JSON.parse(readFileSync(new URL('import.json', FIXTURES_DIR), 'utf8')) as unknown;
export const expectedFixture = () => JSON.parse(readFileSync(new URL('expected.json', FIXTURES_DIR), 'utf8')) as Record<string, unknown>[];

export function checkInOf(name: string): CheckIn {
  const parsed = parseQueueMessage(fixtureText(name));
  if (!parsed.ok) throw new Error(`${name}: ${parsed.reason}`);
  return parsed.value;
}

export function computed(checkIn: CheckIn, over: Partial<ComputedCheckIn> = {}): ComputedCheckIn {
  return {
    messageId: `m-${checkIn.device_data.IMEINumber}-${checkIn.device_data.date}`, source: 'test', receivedAt: Date.parse(checkIn.device_data.date),
    checkIn, reportedModel: checkIn.device_data.model, device: null, CurrentName: 'Pole 1', CurrentLat: 41.8, CurrentLong: -87.6,
    droppedEvents: 0, ActualOngoingFault: checkIn.device_data.Ongoing_fault, ReportedOngoingFault: checkIn.device_data.Ongoing_fault,
    shifts: [], alert: null, previousActualOngoingFault: null, ...over,
  };
}
