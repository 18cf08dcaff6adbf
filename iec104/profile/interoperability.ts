// The interoperability list of IEC 60870-5-104 (clause 9), filled in from what runs: the integration's
// configuration (common addresses, k, w, t0..t3, TLS, ports) and the station's own tables: the codec's
// type table (asdu/types.ts), the types the point model is sent in (data/point-map.ts TYPES), the commands the
// station carries out (station/application.ts COMMAND_HANDLING). Adding a type to those changes the list; nobody
// edits it. Pure: configuration in, a structure out (markdown.ts renders it; docs/iec104.md holds the default's).
import type { TlsMinVersion } from '../../integrations/master-certificate.js';
import type { PointKind } from '../../points/device-points.js';
import { MAX_APDU_LENGTH } from '../apci/apci.js';
import { Cot } from '../asdu/cot.js';
import { GLOBAL_CA } from '../asdu/header.js';
import { TYPE_TABLE, type TypeSpec } from '../asdu/types.js';
import { HEARTBEAT_IOA, INTERROGATION_GROUP, TYPES } from '../data/point-map.js';
import { APCI_RANGES } from '../identity.js';
import { DEFAULT_IEC104_PORT } from '../../config/settings.js';
import { GROUP_CONNECTIONS } from '../server.js';
import { COMMAND_HANDLING, type CommandHandling } from '../station/application.js';
import { DEFAULT_TIMERS, type StationTimers } from '../station/station.js';
import { STANDARD_TYPES, type TypeGroup } from './standard-types.js';
import { DEFAULT_CONNECTION_LIMITS } from '../../integrations/master-listener.js';

export type Status = 'supported' | 'not supported' | 'not applicable' | 'not used in 104';

export interface Item { item: string; status: Status; value?: string }
export interface TypeItem { typeId: number; name: string; description: string; status: Status; note?: string }
export interface CauseAssignment { typeId: number; name: string; causes: number[] }
export interface Parameter { name: string; value: number; default: number; unit: 'frames' | 's'; range: [number, number]; meaning: string }

export interface Section {
  clause: string;
  title: string;
  items: Item[];
  types?: { group: TypeGroup; types: TypeItem[] }[];
  causes?: CauseAssignment[];
  parameters?: Parameter[];
}

export interface InteroperabilityList { title: string; integrationId: string | null; sections: Section[] }

/** The running configuration the list states (an integration of kind iec104 with the listener's port). */
export interface StationConfig {
  integrationId?: string;
  commonAddress: number;
  /** Banks the station serves: common addresses commonAddress .. commonAddress + banks - 1. */
  banks: number;
  timers: StationTimers;
  tlsMinVersion: TlsMinVersion;
  certificateMode: 'ca' | 'pinned';
  /** IEC104_PORT, the listener every integration shares. */
  sharedPort: number;
  /** The integration's own port, if it has one. */
  dedicatedPort?: number;
  analogOnly: boolean;
}

/** What the station implements: its codec's types, the monitor types it sends, the commands it carries out. */
export interface StationCapabilities {
  types: readonly TypeSpec[];
  sent: ReadonlyMap<number, { kind: PointKind; spontaneous: boolean }>;
  commands: ReadonlyMap<number, Pick<CommandHandling, 'accepts' | 'answers' | 'global'>>;
  groups: Readonly<Record<PointKind, number>>;
}

export const STATION_CAPABILITIES: StationCapabilities = {
  types: TYPE_TABLE,
  sent: new Map((Object.entries(TYPES) as [PointKind, { static: number; event: number }][]).flatMap(([kind, t]): [number, { kind: PointKind; spontaneous: boolean }][] => [
    [t.static, { kind, spontaneous: false }], [t.event, { kind, spontaneous: true }]])),
  commands: COMMAND_HANDLING,
  groups: INTERROGATION_GROUP,
};

/** The configuration of an integration with nothing set: what docs/iec104.md lists. */
export const DEFAULT_STATION_CONFIG: StationConfig = {
  commonAddress: 1, banks: 1, timers: DEFAULT_TIMERS, tlsMinVersion: 'TLSv1.2', certificateMode: 'ca', sharedPort: DEFAULT_IEC104_PORT, analogOnly: false,
};

/** A command the station carries out may still be refused: wrong cause, common address or IOA (44 is for the others). */
const NEGATIVE_CAUSES = [Cot.UNKNOWN_COT, Cot.UNKNOWN_CA, Cot.UNKNOWN_IOA];
const yes = (ok: boolean): Status => (ok ? 'supported' : 'not supported');
const na = (item: string): Item => ({ item, status: 'not applicable' });

function typeStatus(id: number, direction: TypeSpec['direction'] | undefined, caps: StationCapabilities): Status {
  if (direction === 'monitor') return yes(caps.sent.has(id));
  if (direction === 'control') return yes(caps.commands.has(id));
  return 'not supported';
}

function typeGroups(caps: StationCapabilities): NonNullable<Section['types']> {
  const inCodec = new Map(caps.types.map((t) => [t.id, t]));
  const groups = [...new Set(STANDARD_TYPES.map((t) => t.group))].map((group) => ({
    group,
    types: STANDARD_TYPES.filter((t) => t.group === group).map((t): TypeItem => {
      const spec = inCodec.get(t.id);
      const status = typeStatus(t.id, spec?.direction, caps);
      const note = !spec ? undefined : status === 'supported' ? undefined
        : spec.direction === 'control' ? 'decoded, refused with COT 44' : 'decoded, not sent';
      return { typeId: t.id, name: t.name, description: t.description, status: status === 'not supported' && t.not104 ? 'not used in 104' : status, ...(note ? { note } : {}) };
    }),
  }));
  // A type the codec knows outside the standard's table (a private range type) is listed too.
  const standard = new Set(STANDARD_TYPES.map((t) => t.id));
  for (const t of caps.types.filter((x) => !standard.has(x.id))) {
    const group = groups.find((g) => g.group === (t.direction === 'monitor' ? 'process information in monitor direction' : 'process information in control direction'))!;
    group.types.push({ typeId: t.id, name: t.name, description: t.description, status: typeStatus(t.id, t.direction, caps), note: 'private range' });
  }
  return groups;
}

function causeAssignments(caps: StationCapabilities): CauseAssignment[] {
  const name = (id: number) => caps.types.find((t) => t.id === id)?.name ?? String(id);
  const monitor = [...caps.sent].map(([typeId, s]) => ({
    typeId, name: name(typeId),
    // Interrogation (station and the kind's group) and read answers carry the type without time; events the other.
    causes: s.spontaneous ? [Cot.SPONTANEOUS] : [Cot.REQUEST, Cot.INTERROGATED_BY_STATION, Cot.INTERROGATED_BY_STATION + caps.groups[s.kind]],
  }));
  const control = [...caps.commands].map(([typeId, c]) => ({ typeId, name: name(typeId), causes: [...new Set([c.accepts, ...c.answers, ...NEGATIVE_CAUSES])].sort((a, b) => a - b) }));
  return [...monitor, ...control].sort((a, b) => a.typeId - b.typeId);
}

const has = (caps: StationCapabilities, name: string) => caps.types.some((t) => t.name === name && (caps.sent.has(t.id) || caps.commands.has(t.id)));
const anyIn = (caps: StationCapabilities, group: TypeGroup) => STANDARD_TYPES.some((t) => t.group === group && (caps.sent.has(t.id) || caps.commands.has(t.id)));

function applicationLayer(c: StationConfig, caps: StationCapabilities): Section {
  const cas = c.banks === 1 ? String(c.commonAddress) : `${c.commonAddress}..${c.commonAddress + c.banks - 1} (one per bank of 8,000 slots)`;
  return {
    clause: '9.5', title: 'Application layer',
    items: [
      { item: 'Transmission mode for application data: mode 1 (least significant octet first)', status: 'supported' },
      { item: 'Common address of ASDU: one octet', status: 'not used in 104' },
      { item: 'Common address of ASDU: two octets', status: 'supported', value: `${cas}; global address ${GLOBAL_CA} for interrogation and clock synchronisation` },
      { item: 'Information object address: three octets, unstructured', status: 'supported', value: `single points 1 + 8s + k, short floats ${HEARTBEAT_IOA + 1} + 8s + k, heartbeat ${HEARTBEAT_IOA} (s the slot within its bank, GET /api/iec104/pointMap)` },
      { item: 'Information object address: one or two octets, structured', status: 'not used in 104' },
      { item: 'Cause of transmission: two octets (with originator address)', status: 'supported', value: 'the originator address of a command is returned in its answers; spontaneous events carry 0' },
      { item: 'Length of APDU', status: 'supported', value: `maximum ${MAX_APDU_LENGTH} octets` },
    ],
    types: typeGroups(caps),
    causes: causeAssignments(caps),
  };
}

function basicFunctions(caps: StationCapabilities): Section {
  const gi = has(caps, 'C_IC_NA_1');
  const groups = Array.from({ length: 16 }, (_, i) => i + 1).map((g): Item => {
    const kind = (Object.entries(caps.groups) as [PointKind, number][]).find(([, n]) => n === g)?.[0];
    return { item: `Group ${g} interrogation`, status: yes(gi), value: kind === 'binary' ? 'the single points' : kind === 'analog' ? 'the measured values (short floats and the heartbeat)' : 'answered, empty' };
  });
  return {
    clause: '9.6', title: 'Basic application functions',
    items: [
      { item: 'Station initialisation: remote initialisation (end of initialisation, M_EI_NA_1)', status: yes(has(caps, 'M_EI_NA_1')) },
      { item: 'Cyclic data transmission (COT 1)', status: 'not supported' },
      { item: 'Read procedure (C_RD_NA_1)', status: yes(has(caps, 'C_RD_NA_1')), value: 'the current value of one point, COT 5' },
      { item: 'Spontaneous transmission (COT 3)', status: yes([...caps.sent.values()].some((s) => s.spontaneous)), value: 'with the devices\' own timestamps (CP56Time2a, UTC)' },
      { item: 'Double transmission of information objects with cause of transmission spontaneous', status: 'not supported' },
      { item: 'Station interrogation: global (QOI 20)', status: yes(gi), value: 'per common address, or every bank at the global address' },
      ...groups,
      { item: 'Clock synchronisation (C_CS_NA_1)', status: yes(has(caps, 'C_CS_NA_1')), value: 'confirmed; the station keeps its own clock (the events carry device time)' },
      { item: 'Command transmission (direct, select and execute; single, double, regulating step, set point, bitstring)', status: yes(anyIn(caps, 'process information in control direction')), value: 'a fault indicator has no outputs: commands get a negative confirmation, COT 44' },
      { item: 'Transmission of integrated totals (C_CI_NA_1)', status: yes(has(caps, 'C_CI_NA_1')) },
      { item: 'Parameter loading (P_ME_NA_1, P_ME_NB_1, P_ME_NC_1)', status: yes(['P_ME_NA_1', 'P_ME_NB_1', 'P_ME_NC_1'].some((n) => has(caps, n))) },
      { item: 'Parameter activation (P_AC_NA_1)', status: yes(has(caps, 'P_AC_NA_1')) },
      { item: 'Test procedure (C_TS_TA_1)', status: yes(has(caps, 'C_TS_TA_1')) },
      { item: 'File transfer in monitor and control direction', status: yes(anyIn(caps, 'file transfer')) },
      { item: 'Background scan (COT 2)', status: 'not supported' },
      { item: 'Acquisition of transmission delay (C_CD_NA_1)', status: 'not used in 104' },
    ],
  };
}

function transport(c: StationConfig): Section {
  const t = c.timers;
  const p = (name: keyof typeof APCI_RANGES, value: number, dflt: number, unit: Parameter['unit'], meaning: string): Parameter =>
    ({ name, value, default: dflt, unit, range: [...APCI_RANGES[name]], meaning });
  return {
    clause: '9.7', title: 'Definition of time outs, k and w, port number, redundant connections, TLS',
    items: [
      { item: 'Port number', status: 'supported', value: c.dedicatedPort ? `${c.dedicatedPort} (this integration's own) and ${c.sharedPort} (IEC104_PORT)` : `${c.sharedPort} (IEC104_PORT)` },
      { item: 'Redundant connections', status: 'supported', value: `up to ${GROUP_CONNECTIONS} per integration (one redundancy group), the one that sent STARTDT active, the others standing by` },
      { item: 'Plain TCP (RFC 2200 suite without TLS)', status: 'not supported' },
      { item: 'IEC 62351-3 TLS with mutual authentication', status: 'supported', value: `TLS ${c.tlsMinVersion === 'TLSv1.3' ? '1.3' : '1.2 or 1.3'}; master certificate ${c.certificateMode === 'pinned' ? 'pinned' : 'issued by the trusted CA'}, identity checked (CN or DNS SAN)` },
    ],
    parameters: [
      p('k', t.k, DEFAULT_TIMERS.k, 'frames', 'maximum difference between send and acknowledged sequence numbers (unacknowledged I frames)'),
      p('w', t.w, DEFAULT_TIMERS.w, 'frames', 'latest acknowledge after receiving w I frames'),
      p('t0', t.t0Ms / 1000, DEFAULT_TIMERS.t0Ms / 1000, 's', `time-out of connection establishment, the master's (the station cuts a connection without a ClientHello after ${DEFAULT_CONNECTION_LIMITS.helloTimeoutMs / 1000} s, a TLS handshake after ${DEFAULT_CONNECTION_LIMITS.handshakeTimeoutMs / 1000} s)`),
      p('t1', t.t1Ms / 1000, DEFAULT_TIMERS.t1Ms / 1000, 's', 'time-out of send or test APDUs'),
      p('t2', t.t2Ms / 1000, DEFAULT_TIMERS.t2Ms / 1000, 's', 'time-out for acknowledges when there is no data message (t2 < t1)'),
      p('t3', t.t3Ms / 1000, DEFAULT_TIMERS.t3Ms / 1000, 's', 'time-out for sending test frames in case of a long idle state'),
    ],
  };
}

/** The list for one configuration; `caps` defaults to this station's own tables. */
export function interoperabilityList(c: StationConfig, caps: StationCapabilities = STATION_CAPABILITIES): InteroperabilityList {
  return {
    title: 'IEC 60870-5-104 interoperability list (clause 9) of the faultline controlled station',
    integrationId: c.integrationId ?? null,
    sections: [
      { clause: '9.1', title: 'System or device', items: [
        { item: 'System definition', status: 'not applicable' },
        { item: 'Controlling station definition (master)', status: 'not supported' },
        { item: 'Controlled station definition (slave)', status: 'supported', value: c.analogOnly ? 'measured values only (analogOnly)' : 'single points and measured values' },
      ] },
      { clause: '9.2', title: 'Network configuration', items: ['Point-to-point', 'Multiple point-to-point', 'Multipoint-partyline', 'Multipoint-star'].map(na) },
      { clause: '9.3', title: 'Physical layer', items: ['Transmission speed (control direction)', 'Transmission speed (monitor direction)', 'Unbalanced interchange circuits V.24/V.28', 'Balanced interchange circuits X.24/X.27'].map(na) },
      { clause: '9.4', title: 'Link layer', items: ['Balanced transmission', 'Unbalanced transmission', 'Address field of the link', 'Frame length (104: the APDU length of 9.5)'].map(na) },
      applicationLayer(c, caps),
      basicFunctions(caps),
      transport(c),
    ],
  };
}
