// The one table of DNP3 objects this outstation knows. Codecs (codec.ts) interpret the field lists, so adding
// a fixed-size variation is one row here. Layouts: IEEE 1815 object library.

export type ObjectField =
  | 'binaryFlags' // flags octet whose bit 7 is the binary state
  | 'flags'
  | 'i16' | 'i32' | 'u16' | 'u32' | 'f32' | 'f64' | 'u8'
  | 't48';

export type ObjectKind = 'binaryStatic' | 'binaryEvent' | 'analogStatic' | 'analogEvent' | 'time' | 'cto' | 'delay' | 'class' | 'iin' | 'command';

export interface ObjectSpec {
  group: number;
  variation: number;
  name: string;
  kind: ObjectKind;
  /** Octets per object; 0 for class objects and variation 0; 'bits' for packed objects (one bit each). */
  size: number | 'bits';
  fields: readonly ObjectField[];
  /** Variation 0 and class objects name data but carry none; they appear only in requests. */
  requestOnly?: boolean;
}

export const OBJECT_TABLE: readonly ObjectSpec[] = [
  { group: 1, variation: 0, name: 'binary input, default variation', kind: 'binaryStatic', size: 0, fields: [], requestOnly: true },
  { group: 1, variation: 1, name: 'binary input packed', kind: 'binaryStatic', size: 'bits', fields: [] },
  { group: 1, variation: 2, name: 'binary input with flags', kind: 'binaryStatic', size: 1, fields: ['binaryFlags'] },
  { group: 2, variation: 0, name: 'binary input event, default variation', kind: 'binaryEvent', size: 0, fields: [], requestOnly: true },
  { group: 2, variation: 1, name: 'binary input event without time', kind: 'binaryEvent', size: 1, fields: ['binaryFlags'] },
  { group: 2, variation: 2, name: 'binary input event with absolute time', kind: 'binaryEvent', size: 7, fields: ['binaryFlags', 't48'] },
  { group: 12, variation: 1, name: 'control relay output block', kind: 'command', size: 11, fields: ['u8', 'u8', 'u32', 'u32', 'u8'] },
  { group: 30, variation: 0, name: 'analog input, default variation', kind: 'analogStatic', size: 0, fields: [], requestOnly: true },
  { group: 30, variation: 1, name: 'analog input 32-bit with flag', kind: 'analogStatic', size: 5, fields: ['flags', 'i32'] },
  { group: 30, variation: 2, name: 'analog input 16-bit with flag', kind: 'analogStatic', size: 3, fields: ['flags', 'i16'] },
  { group: 30, variation: 5, name: 'analog input single-precision with flag', kind: 'analogStatic', size: 5, fields: ['flags', 'f32'] },
  { group: 32, variation: 0, name: 'analog input event, default variation', kind: 'analogEvent', size: 0, fields: [], requestOnly: true },
  { group: 32, variation: 1, name: 'analog input event 32-bit without time', kind: 'analogEvent', size: 5, fields: ['flags', 'i32'] },
  { group: 32, variation: 3, name: 'analog input event 32-bit with time', kind: 'analogEvent', size: 11, fields: ['flags', 'i32', 't48'] },
  { group: 32, variation: 5, name: 'analog input event single-precision without time', kind: 'analogEvent', size: 5, fields: ['flags', 'f32'] },
  { group: 32, variation: 7, name: 'analog input event single-precision with time', kind: 'analogEvent', size: 11, fields: ['flags', 'f32', 't48'] },
  { group: 50, variation: 1, name: 'time and date', kind: 'time', size: 6, fields: ['t48'] },
  { group: 50, variation: 3, name: 'time and date at last recorded time', kind: 'time', size: 6, fields: ['t48'] },
  { group: 51, variation: 1, name: 'time and date CTO', kind: 'cto', size: 6, fields: ['t48'] },
  { group: 52, variation: 2, name: 'time delay fine', kind: 'delay', size: 2, fields: ['u16'] },
  { group: 60, variation: 1, name: 'class 0 data', kind: 'class', size: 0, fields: [], requestOnly: true },
  { group: 60, variation: 2, name: 'class 1 data', kind: 'class', size: 0, fields: [], requestOnly: true },
  { group: 60, variation: 3, name: 'class 2 data', kind: 'class', size: 0, fields: [], requestOnly: true },
  { group: 60, variation: 4, name: 'class 3 data', kind: 'class', size: 0, fields: [], requestOnly: true },
  { group: 80, variation: 1, name: 'internal indications', kind: 'iin', size: 'bits', fields: [] },
];

const BY_ID = new Map<number, ObjectSpec>(OBJECT_TABLE.map((o) => [o.group * 256 + o.variation, o]));

export function objectSpec(group: number, variation: number): ObjectSpec | undefined {
  return BY_ID.get(group * 256 + variation);
}

/** Default variations answered for variation 0 reads: floats because currents and voltages are fractional. */
export const DEFAULT_VARIATION = { binaryStatic: 2, binaryEvent: 2, analogStatic: 5, analogEvent: 7 } as const;

/** Flag bits shared by binary and analog points. */
export const Flags = {
  ONLINE: 0x01,
  RESTART: 0x02,
  COMM_LOST: 0x04,
  OVER_RANGE: 0x20,
  STATE: 0x80,
} as const;
