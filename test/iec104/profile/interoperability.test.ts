// The interoperability list (iec104/profile/interoperability.ts) against the station's own tables: every type
// the station sends or carries out is listed as supported, a type the codec lacks as not, and a type added to
// the tables changes the list with nobody editing it. The configuration's values are what the list states.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Cot } from '../../../iec104/asdu/cot.js';
import { TYPE_TABLE } from '../../../iec104/asdu/types.js';
import { TYPES } from '../../../iec104/data/point-map.js';
import { COMMAND_HANDLING, type CommandHandling } from '../../../iec104/station/application.js';
import {
  DEFAULT_STATION_CONFIG, interoperabilityList, STATION_CAPABILITIES, type InteroperabilityList, type StationCapabilities, type TypeItem,
} from '../../../iec104/profile/interoperability.js';
import { interoperabilityMarkdown } from '../../../iec104/profile/markdown.js';

const typesOf = (l: InteroperabilityList): TypeItem[] => l.sections.flatMap((s) => s.types ?? []).flatMap((g) => g.types);
const statusOf = (l: InteroperabilityList, name: string) => typesOf(l).find((t) => t.name === name)?.status;
const item = (l: InteroperabilityList, clause: string, start: string) => l.sections.find((s) => s.clause === clause)!.items.find((i) => i.item.startsWith(start));
const list = interoperabilityList(DEFAULT_STATION_CONFIG);

test('every type the station sends or carries out is supported; every other type of the codec and the standard is not', () => {
  const sent = new Set(Object.values(TYPES).flatMap((t) => [t.static, t.event]));
  for (const t of TYPE_TABLE) {
    const runs = t.direction === 'monitor' ? sent.has(t.id) : COMMAND_HANDLING.has(t.id);
    assert.is(statusOf(list, t.name), runs ? 'supported' : 'not supported', t.name);
  }
  assert.ok(sent.size >= 4 && COMMAND_HANDLING.size >= 4, 'the tables hold the types the point model and the commands use');
  const inCodec = new Set(TYPE_TABLE.map((t) => t.id));
  const others = typesOf(list).filter((t) => !inCodec.has(t.typeId));
  assert.ok(others.length > 50, `${others.length} standard types the codec lacks`);
  for (const t of others) assert.ok(t.status === 'not supported' || t.status === 'not used in 104', `${t.name}: ${t.status}`);
  assert.is(statusOf(list, 'C_SC_NA_1'), 'not supported');
  assert.is(statusOf(list, 'M_SP_TA_1'), 'not used in 104');
  assert.is(statusOf(list, 'M_EI_NA_1'), 'not supported'); // decoded, never sent: no end of initialisation
});

test('a type added to the codec and the station becomes supported, with its causes, without editing the list', () => {
  const caps: StationCapabilities = {
    ...STATION_CAPABILITIES,
    types: [...TYPE_TABLE, { id: 45, name: 'C_SC_NA_1', direction: 'control', fields: ['qoi'], description: 'single command' }, { id: 3, name: 'M_DP_NA_1', direction: 'monitor', fields: ['siq'], description: 'double-point information' }],
    commands: new Map<number, Pick<CommandHandling, 'accepts' | 'answers' | 'global'>>([...COMMAND_HANDLING, [45, { accepts: Cot.ACTIVATION, answers: [Cot.ACTIVATION_CON, Cot.ACTIVATION_TERM], global: false }]]),
    sent: new Map([...STATION_CAPABILITIES.sent, [3, { kind: 'binary', spontaneous: false }]]),
  };
  const grown = interoperabilityList(DEFAULT_STATION_CONFIG, caps);
  assert.is(statusOf(grown, 'C_SC_NA_1'), 'supported');
  assert.is(statusOf(grown, 'M_DP_NA_1'), 'supported');
  assert.is(item(grown, '9.6', 'Command transmission')!.status, 'supported');
  assert.equal(grown.sections.find((s) => s.clause === '9.5')!.causes!.find((c) => c.typeId === 45)!.causes, [6, 7, 10, 45, 46, 47]);
  // Only in the codec (decoded, not carried out): still not supported.
  const decodedOnly = interoperabilityList(DEFAULT_STATION_CONFIG, { ...caps, commands: COMMAND_HANDLING });
  assert.is(statusOf(decodedOnly, 'C_SC_NA_1'), 'not supported');
});

test('causes of transmission: interrogation and read answers, events, commands as the station handles them', () => {
  const causes = new Map(list.sections.find((s) => s.clause === '9.5')!.causes!.map((c) => [c.name, c.causes]));
  assert.equal(causes.get('M_SP_NA_1'), [5, 20, 21]);
  assert.equal(causes.get('M_ME_NC_1'), [5, 20, 22]);
  assert.equal(causes.get('M_SP_TB_1'), [3]);
  assert.equal(causes.get('M_ME_TF_1'), [3]);
  assert.equal(causes.get('C_IC_NA_1'), [6, 7, 10, 45, 46, 47]);
  assert.equal(causes.get('C_RD_NA_1'), [5, 45, 46, 47]);
});

test('the configuration is what the list states: common addresses, k, w, timers, port, TLS', () => {
  const l = interoperabilityList({
    ...DEFAULT_STATION_CONFIG, integrationId: 'rtu-1', commonAddress: 7, banks: 2, sharedPort: 2404, dedicatedPort: 12404, tlsMinVersion: 'TLSv1.3', certificateMode: 'pinned',
    timers: { k: 20, w: 10, t0Ms: 40_000, t1Ms: 16_000, t2Ms: 11_000, t3Ms: 25_000 },
  });
  assert.is(l.integrationId, 'rtu-1');
  assert.match(item(l, '9.5', 'Common address of ASDU: two octets')!.value!, /^7\.\.8 /);
  const params = new Map(l.sections.find((s) => s.clause === '9.7')!.parameters!.map((p) => [p.name, p.value]));
  assert.equal([...params], [['k', 20], ['w', 10], ['t0', 40], ['t1', 16], ['t2', 11], ['t3', 25]]);
  assert.match(item(l, '9.7', 'Port number')!.value!, '12404');
  assert.match(item(l, '9.7', 'IEC 62351-3 TLS')!.value!, /TLS 1\.3;.*pinned/);
  for (const clause of ['9.2', '9.3', '9.4']) assert.ok(l.sections.find((s) => s.clause === clause)!.items.every((i) => i.status === 'not applicable'), clause);
});

test('Markdown: one row per standard type, marks by status, the title on request', () => {
  const md = interoperabilityMarkdown(list, { title: true });
  assert.ok(md.startsWith(`# ${list.title}\n`));
  assert.ok(md.includes('| [X] | <36> M_ME_TF_1 |'));
  assert.ok(md.includes('| [ ] | <45> C_SC_NA_1 |'));
  assert.ok(md.includes('| [-] | <104> C_TS_NA_1 |'));
  assert.is(md.match(/^\| \[.\] \| <\d+> /gm)!.length, typesOf(list).length);
});

test.run();
