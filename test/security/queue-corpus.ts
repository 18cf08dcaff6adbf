// The hostile queue corpus (issue 7, part 3), generated from the fixtures (test/fixtures), deterministic: the same
// list, names and bodies on every run. Two kinds of entry:
// - `bad`: must be dead-lettered with `code` and a reason matching `reason` (the path of the problem);
// - `hostile`: odd but valid (unicode, unknown EventType, duplicate keys, `__proto__` keys...): must be stored
//   exactly as `stored` says.
// `good(...)` builds plain check-ins for the same IMEIs, sent among and after the corpus to prove that no
// partition is blocked. Every dated entry gets its own date, so no two stored messages share (IMEI, date).
import { DEVICE_NUMBER_FIELDS, DEVICE_STRING_FIELDS } from '../../domain/checkin.js';
import { fixtureText } from '../../support/checkins.js';

export type Code = 'MALFORMED' | 'INVALID' | 'TOO_LARGE';

export interface BadEntry { kind: 'bad'; name: string; body: string; imei: string | null; code: Code; reason: RegExp }
export interface HostileEntry {
  kind: 'hostile'; name: string; body: string; imei: string; date: string;
  /** Columns of the stored device_records row, compared exactly. */
  stored: Record<string, unknown>;
  /** Event types that must be stored for this check-in (events or events_dm1). */
  eventTypes?: string[];
}
export type Entry = BadEntry | HostileEntry;

/** Registered north and south devices (test/fixtures/import.json): the corpus spreads over all of them. */
export const IMEIS = ['861000000000000', '861000000000100', '861000000000200', '861000000000400', '861100000000000', '861100000000500'];

type Message = { device_data: Record<string, unknown>; events: Record<string, unknown>[]; currents: Record<string, unknown> | null; dm1_device?: unknown };
const BASE = JSON.parse(fixtureText('001-plain-checkin.json')) as Message;
const EVENT_BASE = (JSON.parse(fixtureText('002-permanent-fault.json')) as Message).events[0]!;

/** Dates in October 2026, one minute apart: before any fixture date and never in the future. */
let minute = 0;
const nextDate = () => new Date(Date.UTC(2026, 9, 1) + minute++ * 60_000).toISOString().replace('.000Z', 'Z');
const utc = (iso: string) => new Date(iso).toISOString();

function message(imei: string, change: (m: Message) => void = () => {}): Message {
  const m = structuredClone(BASE);
  m.device_data.IMEINumber = imei;
  m.device_data.date = nextDate();
  change(m);
  return m;
}
const text = (m: Message) => JSON.stringify(m);
/** A body with one member's JSON replaced verbatim (for texts JSON.stringify can't write: NaN, 1e400). */
const withRaw = (m: Message, placeholder: string, raw: string) => JSON.stringify(m).replace(`"${placeholder}"`, raw);

export function good(imei: string, label: string): HostileEntry {
  const m = message(imei);
  return { kind: 'hostile', name: `good-${label}-${imei}`, body: text(m), imei, date: m.device_data.date as string, stored: { model: 'FCI-3000' } };
}

export function corpus(): Entry[] {
  minute = 0;
  const out: Entry[] = [];
  let n = 0;
  const imei = () => IMEIS[n++ % IMEIS.length]!;
  const bad = (name: string, body: string, code: Code, reason: RegExp, key: string | null = null) =>
    out.push({ kind: 'bad', name, body, imei: key, code, reason });
  const invalid = (name: string, change: (m: Message) => void, reason: RegExp) => {
    const id = imei();
    bad(name, text(message(id, change)), 'INVALID', reason, id);
  };
  const hostile = (name: string, change: (m: Message) => void, stored: Record<string, unknown>, edit?: (body: string) => string, eventTypes?: string[]) => {
    const id = imei();
    const m = message(id, change);
    const body = edit ? edit(text(m)) : text(m);
    if (edit && body === text(m)) throw new Error(`${name}: the edit changed nothing`);
    out.push({ kind: 'hostile', name, body, imei: id, date: m.device_data.date as string, stored, ...(eventTypes ? { eventTypes } : {}) });
  };

  // Truncated JSON: the first k characters of a good body, at 40 cut points.
  const whole = text(message(IMEIS[0]!));
  for (let i = 1; i <= 40; i++) {
    const cut = Math.floor((whole.length * i) / 41);
    bad(`truncated-${cut}`, whole.slice(0, cut), 'MALFORMED', /not valid JSON/);
  }
  // Not JSON at all, and JSON that is not an object.
  for (const [name, body] of [['empty', ''], ['blank', '   '], ['nan-literal', '{"a": NaN}'], ['single-quotes', "{'device_data': {}}"], ['trailing-comma', '{"device_data": {},}'],
    ['bom', '\ufeff' + whole], ['xml', '<device_data/>'], ['comment', '/* x */' + whole], ['deep-nesting', '['.repeat(200_000) + ']'.repeat(200_000)],
    ['unterminated-string', '{"device_data": {"IMEINumber": "8610']] as const) {
    bad(`malformed-${name}`, body, name === 'deep-nesting' ? 'MALFORMED' : 'MALFORMED', /JSON/);
  }
  for (const [name, body] of [['array', '[]'], ['string', '"device_data"'], ['number', '42'], ['null', 'null'], ['true', 'true'], ['array-of-message', `[${whole}]`]] as const) {
    bad(`not-object-${name}`, body, 'MALFORMED', /not a JSON object/);
  }

  // Wrong types in every device_data field.
  const wrongNumber: [string, unknown][] = [['object', { v: 1 }], ['bool', true], ['array', [1]], ['word', 'abc'], ['hex', '0x10'], ['nan', 'NaN'], ['inf', 'Infinity'], ['neg-inf', '-Infinity']];
  DEVICE_NUMBER_FIELDS.forEach((field, i) => {
    // two wrong values per field, rotating through the list
    for (const [label, value] of [wrongNumber[i % wrongNumber.length]!, wrongNumber[(i + 3) % wrongNumber.length]!]) {
      invalid(`type-${field}-${label}`, (m) => { m.device_data[field] = value; }, new RegExp(`device_data\\.${field}`));
    }
  });
  for (const field of DEVICE_STRING_FIELDS) {
    invalid(`type-${field}-object`, (m) => { m.device_data[field] = { s: 'x' }; }, new RegExp(`device_data\\.${field}`));
    invalid(`type-${field}-bool`, (m) => { m.device_data[field] = false; }, new RegExp(`device_data\\.${field}`));
  }
  // IMEINumber: the key of everything.
  for (const [label, value] of [['number', 861000000000000], ['13-digits', '8610000000000'], ['17-digits', '86100000000000000'], ['spaces', ' 861000000000000'],
    ['letters', '86100000000000A'], ['fullwidth', '８６１０００００００００００００'], ['arabic-indic', '٨٦١٠٠٠٠٠٠٠٠٠٠٠٠'], ['nul', '861000000000000\u0000'],
    ['negative', '-86100000000000'], ['object', { v: '861000000000000' }], ['array', ['861000000000000']], ['newline', '861000000000000\n']] as const) {
    bad(`imei-${label}`, text(message('x', (m) => { m.device_data.IMEINumber = value; })), 'INVALID', /IMEINumber/);
  }
  bad('imei-missing', text(message('x', (m) => { delete m.device_data.IMEINumber; })), 'INVALID', /IMEINumber/);
  bad('device-data-array', JSON.stringify({ ...BASE, device_data: [BASE.device_data] }), 'INVALID', /device_data/);
  bad('device-data-string', JSON.stringify({ ...BASE, device_data: 'x' }), 'INVALID', /device_data/);
  // Ongoing_fault is required, an integer >= 0.
  for (const [label, value] of [['missing', undefined], ['negative', -1], ['fraction', 1.5], ['word', 'none'], ['huge', 2 ** 60], ['null', null]] as const) {
    invalid(`ongoing-fault-${label}`, (m) => { if (value === undefined) delete m.device_data.Ongoing_fault; else m.device_data.Ongoing_fault = value; }, /Ongoing_fault/);
  }

  // Huge arrays (under the size limit, so the validator has to walk them).
  invalid('huge-hourly-50000', (m) => { m.currents!.HourlyAverages = new Array(50_000).fill(1); }, /HourlyAverages: has 50000 entries/);
  invalid('huge-events-20000-numbers', (m) => { m.events = new Array(20_000).fill(1); }, /events\[0\]/);
  invalid('huge-events-5000-empty', (m) => { m.events = new Array(5_000).fill({}); }, /events\[0\]\.EventID/);
  invalid('huge-events-of-arrays', (m) => { m.events = new Array(3_000).fill([1, 2, 3]); }, /events\[0\]/);
  // 24 hourly averages that are 23, 25 or 24 with a bad entry.
  for (const count of [1, 12, 23, 25, 48]) {
    invalid(`hourly-${count}`, (m) => { m.currents!.HourlyAverages = new Array(count).fill(100.5); }, new RegExp(`HourlyAverages: has ${count} entries`));
  }
  for (const [label, value] of [['nan', 'NaN'], ['inf', 'Infinity'], ['null', null], ['object', {}], ['word', 'high'], ['bool', true]] as const) {
    invalid(`hourly-entry-${label}`, (m) => { (m.currents!.HourlyAverages as unknown[])[7] = value; }, /HourlyAverages\[7\]/);
  }
  invalid('hourly-not-array', (m) => { m.currents!.HourlyAverages = '1,2,3'; }, /HourlyAverages/);
  invalid('currents-array', (m) => { m.currents = [1, 2] as never; }, /currents/);
  // NaN and Infinity as the JSON text itself (not valid JSON) and as overflowing numbers (1e400 parses to Infinity).
  for (const field of ['rssi', 'BatteryMCU', 'Temperature']) {
    const id = imei();
    bad(`raw-nan-${field}`, withRaw(message(id, (m) => { m.device_data[field] = '@RAW@'; }), '@RAW@', 'NaN'), 'MALFORMED', /JSON/, id);
    bad(`raw-infinity-${field}`, withRaw(message(id, (m) => { m.device_data[field] = '@RAW@'; }), '@RAW@', 'Infinity'), 'MALFORMED', /JSON/, id);
    const id2 = imei();
    bad(`overflow-${field}`, withRaw(message(id2, (m) => { m.device_data[field] = '@RAW@'; }), '@RAW@', '1e400'), 'INVALID', new RegExp(`device_data\\.${field}.*finite`), id2);
    const id3 = imei();
    bad(`overflow-neg-${field}`, withRaw(message(id3, (m) => { m.device_data[field] = '@RAW@'; }), '@RAW@', '-1e400'), 'INVALID', new RegExp(`device_data\\.${field}.*finite`), id3);
  }
  invalid('overflow-hourly', (m) => { (m.currents!.HourlyAverages as unknown[])[0] = '1e400'; }, /HourlyAverages\[0\].*finite/);

  // Dates: 1900, 2999, unset clocks, impossible days, no offset, not a date.
  const dates: [string, string][] = [['1900', '1900-01-01T00:00:00Z'], ['2999', '2999-12-31T23:59:59Z'], ['1970', '1970-01-01T00:00:00Z'], ['1999', '1999-12-31T23:59:59Z'],
    ['year-0', '0000-01-01T00:00:00Z'], ['feb-30', '2026-02-30T10:00:00Z'], ['hour-25', '2026-10-01T25:00:00Z'], ['no-offset', '2026-10-01T10:00:00'],
    ['words', 'yesterday'], ['epoch-seconds', '1790000000'], ['extended-year', '+275760-09-13T00:00:00Z'], ['next-year', '2027-11-01T00:00:00Z']];
  for (const [label, value] of dates) {
    invalid(`date-${label}`, (m) => { m.device_data.date = value; }, /device_data\.date/);
    invalid(`peak-timestamp-${label}`, (m) => { m.currents!.PeakCurrentTimestamp = value; }, /currents\.PeakCurrentTimestamp/);
  }
  for (const [label, value] of dates.slice(0, 6)) {
    invalid(`event-timestamp-${label}`, (m) => { m.events = [{ ...EVENT_BASE, EventTimestamp: value }]; }, /events\[0\]\.EventTimestamp/);
  }
  invalid('date-number', (m) => { m.device_data.date = 1790000000000; }, /device_data\.date/);

  // Events: wrong shapes.
  invalid('events-object', (m) => { m.events = { 0: EVENT_BASE } as never; }, /events: /);
  invalid('events-string', (m) => { m.events = 'none' as never; }, /events: /);
  invalid('event-type-empty', (m) => { m.events = [{ ...EVENT_BASE, EventType: '' }]; }, /EventType/);
  invalid('event-type-number', (m) => { m.events = [{ ...EVENT_BASE, EventType: 5 }]; }, /EventType/);
  invalid('event-type-object', (m) => { m.events = [{ ...EVENT_BASE, EventType: { name: 'Fault' } }]; }, /EventType/);
  invalid('event-id-negative', (m) => { m.events = [{ ...EVENT_BASE, EventID: -4 }]; }, /EventID/);
  invalid('event-id-fraction', (m) => { m.events = [{ ...EVENT_BASE, EventID: 4.5 }]; }, /EventID/);
  invalid('event-id-unsafe', (m) => { m.events = [{ ...EVENT_BASE, EventID: 2 ** 60 }]; }, /EventID/);
  invalid('event-id-missing', (m) => { const e: Record<string, unknown> = { ...EVENT_BASE }; delete e.EventID; m.events = [e]; }, /EventID/);
  invalid('event-current-word', (m) => { m.events = [{ ...EVENT_BASE, FaultCurrent: 'lots' }]; }, /FaultCurrent/);
  invalid('dm1-flag-string', (m) => { m.dm1_device = 'yes'; }, /dm1_device/);
  invalid('dm1-flag-number', (m) => { m.dm1_device = 1; }, /dm1_device/);

  // Prototype pollution: a key only reachable through the prototype must not count.
  bad('proto-imei-only', `{"device_data": {"__proto__": {"IMEINumber": "${IMEIS[0]}"}, "date": "2026-10-01T00:00:00Z", "Ongoing_fault": 0}}`, 'INVALID', /IMEINumber/);
  bad('proto-device-data-only', `{"__proto__": {"device_data": ${JSON.stringify(BASE.device_data)}}}`, 'INVALID', /device_data/);
  invalid('proto-ongoing-fault-only', (m) => { delete m.device_data.Ongoing_fault; (m.device_data as Record<string, unknown>)['constructor'] = { prototype: { Ongoing_fault: 0 } }; }, /Ongoing_fault/);
  // Duplicate keys: the last one wins (JSON.parse); a bad last one is refused.
  {
    const id = imei();
    const body = text(message(id)).replace('"Ongoing_fault":0', '"Ongoing_fault":0,"Ongoing_fault":"high"');
    if (!body.includes('"high"')) throw new Error('duplicate-key-bad-last: the edit changed nothing');
    bad('duplicate-key-bad-last', body, 'INVALID', /Ongoing_fault/, id);
  }
  // 10 MB bodies and just over the 1 MiB limit (SQS refuses some of them; those go through the spool inbox).
  bad('ten-mb-program', text(message(IMEIS[0]!, (m) => { m.device_data.Program = 'x'.repeat(10 * 1024 * 1024); })), 'TOO_LARGE', /over the 1048576 byte limit/);
  bad('ten-mb-garbage', '{'.repeat(10 * 1024 * 1024), 'TOO_LARGE', /over the 1048576 byte limit/);
  bad('ten-mb-events', text(message(IMEIS[1]!, (m) => { m.events = new Array(70_000).fill(EVENT_BASE); })), 'TOO_LARGE', /over the 1048576 byte limit/);
  bad('one-mib-plus-one', (() => { const b = text(message(IMEIS[2]!, (m) => { m.device_data.Program = ''; })); return b.replace('"Program":""', `"Program":"${'y'.repeat(1024 * 1024 + 1 - b.length)}"`); })(), 'TOO_LARGE', /1048577 bytes/);
  bad('multibyte-over-limit', text(message(IMEIS[3]!, (m) => { m.device_data.Program = '€'.repeat(400_000); })), 'TOO_LARGE', /over the 1048576 byte limit/);
  // Control characters in the raw text, outside strings (SQS refuses most of them: spool inbox).
  bad('raw-nul-byte', whole.replace('{', '{\u0000'), 'MALFORMED', /JSON/);
  bad('raw-control-chars', whole.replace('{', '{\u0001\u0002'), 'MALFORMED', /JSON/);
  bad('raw-newline-in-string', whole.replace('FCI-3000', 'FCI\n3000'), 'MALFORMED', /JSON/);

  // Hostile but valid: stored exactly as sent.
  const strings: [string, string][] = [['emoji', 'STD-7 🔌⚡'], ['rtl-override', 'abc\u202edcba'], ['combining', 'e\u0301\u0301\u0301'], ['cjk', '配電線障害'],
    ['control-escaped', 'a\u0001b\u0007c\u001b[31m'], ['tab-newline', 'line1\nline2\tend'], ['sql-quote', "x'); drop table device_records; --"], ['html', '<script>alert(1)</script>'],
    ['zero-width', 'A\u200bB\u2060C\ufeff'], ['long-10k', 'z'.repeat(10_000)], ['backslashes', '\\\\x00\\u0000'], ['del-c1', '\u007f\u0085\u009f']];
  for (const [label, value] of strings) hostile(`unicode-program-${label}`, (m) => { m.device_data.Program = value; }, { Program: value });
  hostile('unicode-model-emoji', (m) => { m.device_data.model = 'FCI-3000'; m.device_data.version = '4.2.1-βeta☃'; }, { version: '4.2.1-βeta☃' });
  hostile('unknown-event-type', (m) => { m.events = [{ ...EVENT_BASE, EventID: 900 + n, EventTimestamp: m.device_data.date, EventType: 'ALIEN_INVASION' }]; }, {}, undefined, ['ALIEN_INVASION']);
  hostile('unknown-event-type-unicode', (m) => { m.events = [{ ...EVENT_BASE, EventID: 901 + n, EventTimestamp: m.device_data.date, EventType: 'Fäult ⚡ \u0007' }]; }, {}, undefined, ['Fäult ⚡ \u0007']);
  hostile('proto-keys-in-device-data', () => {}, { model: 'FCI-3000', Program: 'STD-7' },
    (b) => b.replace('"model":"FCI-3000"', '"model":"FCI-3000","__proto__":{"polluted":true,"Program":"EVIL"},"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true}'));
  hostile('proto-keys-at-root', () => {}, { Program: 'STD-7' },
    (b) => '{"__proto__":{"device_data":{"Program":"EVIL"}},"constructor":{"prototype":{"x":1}},"prototype":{"y":2},' + b.slice(1));
  hostile('proto-keys-in-currents-and-events', (m) => { m.events = [{ ...EVENT_BASE, EventID: 950 + n, EventTimestamp: m.device_data.date }]; }, { Program: 'STD-7' },
    (b) => b.replace('"HourlyAverages"', '"__proto__":{"HourlyAverages":[]},"HourlyAverages"').replace('"EventID"', '"__proto__":{"EventType":"EVIL"},"EventID"'), [EVENT_BASE.EventType as string]);
  hostile('duplicate-key-good-last', () => {}, { rssi: -55 }, (b) => b.replace('"rssi":-71', '"rssi":"loud","rssi":-55'));
  hostile('duplicate-program', () => {}, { Program: 'SECOND' }, (b) => b.replace('"Program":"STD-7"', '"Program":"FIRST","Program":"SECOND"'));
  hostile('duplicate-device-data', () => {}, { Program: 'LAST' }, (b) => b.replace('"device_data":{', '"device_data":{"IMEINumber":"x"},"device_data":{').replace('"Program":"STD-7"', '"Program":"LAST"'));
  hostile('numeric-strings', (m) => { m.device_data.rssi = ' -71 '; m.device_data.BatteryMCU = '3.61'; }, { rssi: -71, BatteryMCU: 3.61 });
  // A fixed afternoon with an offset: 14:30 UTC, inside the corpus day and far from the one-minute dates.
  hostile('offset-date', (m) => { m.device_data.date = '2026-10-01T20:00:00+05:30'; }, {});
  hostile('unknown-fields', (m) => { (m.device_data as Record<string, unknown>).extra = { nested: [1, 2, 3] }; (m as unknown as Record<string, unknown>).junk = 'x'.repeat(1000); }, { Program: 'STD-7' });
  hostile('empty-hourly', (m) => { m.currents = { HourlyAverages: [] }; }, { Program: 'STD-7' });

  // Hostile entries that changed the date need it read back from the body.
  for (const e of out) if (e.kind === 'hostile') e.date = utc((JSON.parse(e.body) as Message).device_data.date as string);
  return out;
}
