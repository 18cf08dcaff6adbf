// The DNP3 device profile of one integration (issue 21 point 1; docs/decisions.md#dnp3-device-profile), in the
// DNP3 XML device-profile format that opendnp3's profile/opendnp3_profile.xml uses (DNP Users Group schema,
// namespace .../DeviceProfile/July2012). Pure: built from the running configuration the caller passes (the
// integration, the outstation config every bank uses, the point map) and nothing else, so it cannot claim
// what the outstation does not do. Each item gives `currentValue` (what this integration gets) and, where the
// value is a choice, `capabilities`.
import { create } from 'xmlbuilder2';
import { DEFAULT_VARIATION } from '../objects/table.js';
import { MAX_FRAME_SIZE } from '../link/frame.js';
import { DEFAULT_MAX_FRAGMENT } from '../transport/transport.js';
import type { Dnp3Integration } from '../identity.js';
import type { OutstationConfig } from '../outstation/outstation.js';
import type { PointMapBank, PointMapRow } from '../data/point-map.js';
import { IMPLEMENTATION, KNOWN_GAPS, SUPPORTED_FUNCTION_CODES } from './implementation.js';

export const PROFILE_NAMESPACE = 'http://www.dnp3.org/DNP3/DeviceProfile/July2012';

export interface ProfileInput {
  integration: Pick<Dnp3Integration, 'id' | 'organizationId' | 'outstationAddress' | 'masterAddress' | 'unsolicited' | 'tlsMinVersion' | 'certificateMode' | 'analogOnly' | 'port'>;
  /** The shared DNP3 port (DNP3_PORT); the integration's own `port` is listed besides it. */
  sharedPort: number;
  config: OutstationConfig;
  /** Every bank of the organisation; the profile describes `bank` (one logical outstation, one link address). */
  banks: readonly PointMapBank[];
  bank: number;
  /** The point map rows (of every bank; those of `bank` are listed). */
  points: readonly PointMapRow[];
  softwareVersion: string;
  /** ISO date of generation (documentHeader). */
  generatedAt: string;
}

type Node = Record<string, unknown>;
const value = (v: string | number): Node => ({ currentValue: { value: String(v) } });
const pick = (tag: string, note?: string): Node => ({ capabilities: { [tag]: {} }, currentValue: { ...(note ? { note } : {}), [tag]: {} } });
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
const word = (n: number) => WORDS[n]!;
const variationOf = (gv: string | null) => (gv ? Number(gv.split('v')[1]) : 0);
const className = (c: number) => (c === 0 ? 'none' : word(c));

/**
 * The configuration of one input group of the database section: default variations, every event reported,
 * always in class 0, then the group's own items. The schema names the two mode elements per group (the
 * analog group's carry an `analog` prefix), and element order is schema order, so the names are passed in.
 */
function inputGroup(staticVariation: number, eventVariation: number, modes: { reporting: string; class0: string }, own: Record<string, Node>): Node {
  return {
    configuration: {
      defaultStaticVariation: pick(word(staticVariation)),
      defaultEventVariation: pick(word(eventVariation)),
      [modes.reporting]: pick('allEvents'),
      [modes.class0]: pick('always'),
      ...own,
    },
  };
}

function point(r: PointMapRow): Node {
  const device = r.imei ? ` of ${r.deviceName ?? 'unnamed device'} (IMEI ${r.imei}, slot ${r.slot})` : '';
  const common = {
    index: String(r.index),
    name: `${r.point}${device}`,
    description: `bank ${r.bank} at link address ${r.outstationAddress}${r.unit ? `; unit ${r.unit}` : ''}${r.deadband !== null ? `; deadband ${r.deadband}` : ''}`,
    changeEventClass: className(r.eventClass),
    includedInClass0Response: 'always',
    defaultStaticVariation: { [word(variationOf(r.staticVariation))]: {} },
    defaultEventVariation: r.eventVariation ? { [word(variationOf(r.eventVariation))]: {} } : {},
  };
  if (r.type === 'binary') return { ...common, nameState0: 'false', nameState1: 'true' };
  return { ...common, analogDeadbandAlgorithm: { simple: {} } };
}

/**
 * @example
 *   const xml = deviceProfileXml({ integration, sharedPort: 20000, config: DEFAULT_OUTSTATION_CONFIG, banks, points, softwareVersion: APP_VERSION, generatedAt: '2026-11-24' });
 */
export function deviceProfileXml(p: ProfileInput): string {
  const i = p.integration;
  const c = p.config;
  const bank = p.banks.find((b) => b.bank === p.bank);
  if (!bank) throw new RangeError(`bank ${p.bank}: the organisation has banks 0..${p.banks.length - 1}`);
  const addresses = p.banks.map((b) => `${b.outstationAddress} (bank ${b.bank}, slots ${b.firstSlot}..${b.lastSlot})`).join(', ');
  const ports = i.port ? `${p.sharedPort} and ${i.port}` : String(p.sharedPort);
  const doc: Node = {
    DNP3DeviceProfileDocument: {
      '@xmlns': PROFILE_NAMESPACE,
      '@schemaVersion': '2.08.00',
      documentHeader: {
        documentName: `faultline DNP3 device profile: integration ${i.id}, bank ${bank.bank} (link address ${bank.outstationAddress})`,
        documentDescription: `Generated from the running configuration of organisation ${i.organizationId} on ${p.generatedAt}. `
          + 'Event timestamps are the devices\' own (UTC, when the fault indicator saw the change), not faultline\'s receive or send time. '
          + `Known gaps: ${KNOWN_GAPS.join(' ')}`,
        revisionHistory: { '@version': '1', date: p.generatedAt, author: 'faultline', reason: 'generated' },
      },
      referenceDevice: {
        configuration: {
          deviceConfig: {
            deviceFunction: { capabilities: { outstation: {} }, currentValue: { outstation: {} } },
            vendorName: value('faultline'),
            deviceName: value(`faultline outstation for ${i.organizationId}`),
            softwareVersion: value(p.softwareVersion),
            dnpLevelSupported: { capabilities: { outStation: { level2: {} } }, currentValue: { outStation: { level2: {} } } },
            notableAdditions: { currentValue: { note: `One logical outstation per bank of 8,000 devices on one connection (multi-drop): link addresses ${addresses}.` } },
            connectionsSupported: { capabilities: { network: {} }, currentValue: { network: {} } },
          },
          networkConfig: {
            typeOfEndPoint: pick('tcpListening', `TLS only: mutual TLS, minimum ${i.tlsMinVersion}, client certificate checked by ${i.certificateMode === 'ca' ? 'issuing CA and master identity' : 'pinned certificate'}.`),
            tcpListenPort: { currentValue: { note: `TCP ${ports}, TLS`, value: String(i.port ?? p.sharedPort) } },
            multipleMasterConnections: pick('notSupported', 'One master connection per integration; a second replaces the first.'),
            timeSynchronization: pick('dnpWriteTimeProcedure', 'LAN (RECORD_CURRENT_TIME + WRITE g50v3) and non-LAN (DELAY_MEASURE + WRITE g50v1).'),
          },
          linkConfig: {
            dataLinkAddress: value(bank.outstationAddress),
            sourceAddressValidation: pick('alwaysSingleAddress'),
            expectedSourceAddress: value(i.masterAddress),
            selfAddressSupport: pick('no'),
            sendsConfirmedUserDataFrames: pick('never'),
            maxTransmittedFrameSize: value(MAX_FRAME_SIZE),
            maxReceivedFrameSize: value(MAX_FRAME_SIZE),
          },
          applConfig: {
            maxTransmittedFragmentSize: value(c.maxTxFragment),
            maxReceivedFragmentSize: value(DEFAULT_MAX_FRAGMENT),
          },
          outstationConfig: {
            applicationLayerConfirmTimeout: value(c.confirmTimeoutMs),
            timeSyncRequired: pick('never', 'Not required: events carry the devices\' timestamps. NEED_TIME (IIN1.4) is set from start-up until the first time write (1.10.2); the synchronised clock answers READ g50v1 only.'),
            eventBufferOverflowBehavior: pick('discardOldest'),
            eventBufferOrganization: { currentValue: { note: `${c.eventCapacityPerClass} events per class per bank` } },
            sendsMultiFragmentResponses: pick('yes'),
            requestsLastFragmentConfirmation: pick('sometimes', 'When the fragment carries events.'),
            configurationSignatureSupported: pick('notSupported'),
          },
          unsolicitedConfig: {
            supportsUnsolicitedReporting: { capabilities: { configurable: {} }, currentValue: { [i.unsolicited ? 'on' : 'off']: {} } },
            masterDataLinkAddress: value(i.masterAddress),
            unsolicitedResponseConfirmationTimeout: value(c.unsolConfirmTimeoutMs),
            maxUnsolicitedRetries: Number.isFinite(c.unsolMaxRetries) ? value(c.unsolMaxRetries) : { currentValue: { infinite: {} } },
          },
          outstationPerformance: {
            outstationSetsIIN14: pick('atStartup'),
          },
        },
        database: {
          binaryInputGroup: inputGroup(DEFAULT_VARIATION.binaryStatic, DEFAULT_VARIATION.binaryEvent, { reporting: 'eventReportingMode', class0: 'class0ResponseMode' }, {
            eventBufferPerObjectGroup: { currentValue: { numEvents: String(c.eventCapacityPerClass) } },
          }),
          analogInputGroup: inputGroup(DEFAULT_VARIATION.analogStatic, DEFAULT_VARIATION.analogEvent, { reporting: 'analogEventReportingMode', class0: 'analogInputClass0ResponseMode' }, {
            analogDeadbandAssignments: pick('basedOnPointIndex'),
            analogDeadbandAlgorithm: pick('simple'),
          }),
        },
        implementationTable: {
          table: {
            supportedVariation: IMPLEMENTATION.map((r) => ({
              objectGroup: String(r.group), variation: String(r.variation), description: r.description,
              ...(r.request ? { request: { functionCode: r.request.functionCodes.map(String), qualifierCode: r.request.qualifiers.map(String) } } : {}),
              ...(r.response ? { response: { functionCode: r.response.functionCodes.map(String), qualifierCode: r.response.qualifiers.map(String) } } : {}),
            })),
          },
          note: `Function codes executed: ${SUPPORTED_FUNCTION_CODES.map((f) => `${f.code} ${f.name}`).join(', ')}.`,
        },
        dataPointsList: {
          binaryInputPoints: { dataPoints: { binaryInput: p.points.filter((r) => r.bank === bank.bank && r.type === 'binary').map(point) } },
          analogInputPoints: { dataPoints: { analogInput: p.points.filter((r) => r.bank === bank.bank && r.type === 'analog').map(point) } },
        },
      },
    },
  };
  return create({ version: '1.0', encoding: 'utf-8' }, doc).end({ prettyPrint: true });
}
