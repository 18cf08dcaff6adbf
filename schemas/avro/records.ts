// Avro record types shared by the topic schemas. Written once here and composed in topics.ts; the committed
// `schemas/*.avsc` files are generated from them (`npm run generate:schemas`), and a test fails when they
// drift. Field names are the spec's (section 2), so a record reads the same on the wire, in Postgres and in
// the API.
import { DEVICE_NUMBER_FIELDS, DEVICE_STRING_FIELDS } from '../../domain/checkin.js';

export type AvroSchema = Record<string, unknown>;
const NS = 'faultline';

/** A field that may be absent: null first so that `default: null` is legal and later additions stay BACKWARD compatible. */
export const optional = (name: string, type: unknown, doc?: string) => ({ name, type: ['null', type], default: null, ...(doc ? { doc } : {}) });
export const required = (name: string, type: unknown, doc?: string) => ({ name, type, ...(doc ? { doc } : {}) });

const timestampMillis = { type: 'long', logicalType: 'timestamp-millis' };

export const deviceData: AvroSchema = {
  type: 'record', name: 'DeviceData', namespace: NS, doc: 'device_data of spec 2.2 as validated; timestamps are ISO 8601 UTC strings',
  fields: [
    required('IMEINumber', 'string'),
    required('date', 'string'),
    required('Ongoing_fault', 'int'),
    ...DEVICE_STRING_FIELDS.map((f) => optional(f, 'string')),
    ...DEVICE_NUMBER_FIELDS.map((f) => optional(f, 'double')),
  ],
};

export const deviceEvent: AvroSchema = {
  type: 'record', name: 'DeviceEvent', namespace: NS, doc: 'one event of spec 2.3 (standard and DM1 shapes in one record)',
  fields: [
    required('EventID', 'long'),
    required('EventTimestamp', 'string'),
    required('EventType', 'string'),
    optional('PrefaultCurrent', 'double'),
    optional('FaultCurrent', 'double'),
    optional('RecoverCurrent', 'double'),
    optional('PhaseAEvent', 'string'),
    optional('PhaseBEvent', 'string'),
    optional('PhaseCEvent', 'string'),
  ],
};

export const currents: AvroSchema = {
  type: 'record', name: 'Currents', namespace: NS,
  fields: [
    optional('PeakCurrent', 'double'),
    optional('PeakCurrentTimestamp', 'string'),
    required('HourlyAverages', { type: 'array', items: 'double' }),
  ],
};

export const checkIn: AvroSchema = {
  type: 'record', name: 'CheckIn', namespace: NS, doc: 'a validated queue message (spec 2.1)',
  fields: [
    required('device_data', deviceData),
    required('events', { type: 'array', items: deviceEvent }),
    optional('currents', currents),
    required('dm1_device', 'boolean'),
    optional('test_fault', {
      type: 'record', name: 'TestFaultMark', namespace: NS, doc: 'set only on the synthetic check-ins of a test fault (docs/decisions.md#test-faults)',
      fields: [required('id', 'long'), required('phase', 'string', 'fault | clear')],
    }),
  ],
};

export const deviceSnapshot: AvroSchema = {
  type: 'record', name: 'DeviceSnapshot', namespace: NS, doc: 'device information at check-in time (spec 2.5)',
  fields: [
    required('DeviceID', 'long'),
    required('IMEINumber', 'string'),
    optional('Real_Name', 'string'),
    optional('Lat', 'double'),
    optional('Long', 'double'),
    required('OrganizationID', 'string'),
    optional('PowerLineID', 'string'),
    optional('dnp3QueueAddress', 'string'),
  ],
};

/** Where a record came from; carried by every topic so a row can be traced back to its queue message. */
export const origin = [
  required('messageId', 'string', 'SQS MessageId, spool file name or simulator id'),
  required('source', 'string', 'sqs | spool | simulate | replay'),
  required('receivedAt', timestampMillis, 'when the source handed the message to faultline'),
];
