// The one table of ASDU types this station knows (IEC 60870-5-101/104 clause 7.3). Codecs (codec.ts) interpret
// the field lists, so adding a fixed-size type is one row here.

/** Information element fields: SIQ/QDS quality octets, short float, CP56Time2a, qualifiers, test sequence counter. */
export type ElementField = 'siq' | 'qds' | 'r32' | 'cp56' | 'qoi' | 'coi' | 'tsc' | 'fbp';

export interface TypeSpec {
  id: number;
  name: string;
  direction: 'monitor' | 'control';
  fields: readonly ElementField[];
  description: string;
}

export const TYPE_TABLE: readonly TypeSpec[] = [
  { id: 1, name: 'M_SP_NA_1', direction: 'monitor', fields: ['siq'], description: 'single-point information' },
  { id: 13, name: 'M_ME_NC_1', direction: 'monitor', fields: ['r32', 'qds'], description: 'measured value, short floating point' },
  { id: 30, name: 'M_SP_TB_1', direction: 'monitor', fields: ['siq', 'cp56'], description: 'single-point information with CP56Time2a' },
  { id: 36, name: 'M_ME_TF_1', direction: 'monitor', fields: ['r32', 'qds', 'cp56'], description: 'measured value, short floating point, with CP56Time2a' },
  { id: 70, name: 'M_EI_NA_1', direction: 'monitor', fields: ['coi'], description: 'end of initialisation' },
  { id: 100, name: 'C_IC_NA_1', direction: 'control', fields: ['qoi'], description: 'interrogation command' },
  { id: 102, name: 'C_RD_NA_1', direction: 'control', fields: [], description: 'read command' },
  { id: 103, name: 'C_CS_NA_1', direction: 'control', fields: ['cp56'], description: 'clock synchronisation command' },
  { id: 107, name: 'C_TS_TA_1', direction: 'control', fields: ['tsc', 'cp56'], description: 'test command with CP56Time2a' },
];

export const TypeId = Object.fromEntries(TYPE_TABLE.map((t) => [t.name, t.id])) as Record<
  'M_SP_NA_1' | 'M_ME_NC_1' | 'M_SP_TB_1' | 'M_ME_TF_1' | 'M_EI_NA_1' | 'C_IC_NA_1' | 'C_RD_NA_1' | 'C_CS_NA_1' | 'C_TS_TA_1', number>;

const BY_ID = new Map(TYPE_TABLE.map((t) => [t.id, t]));
export const typeSpec = (id: number): TypeSpec | undefined => BY_ID.get(id);

export const FIELD_SIZE: Readonly<Record<ElementField, number>> = { siq: 1, qds: 1, r32: 4, cp56: 7, qoi: 1, coi: 1, tsc: 2, fbp: 2 };
export const elementSize = (t: TypeSpec): number => t.fields.reduce((n, f) => n + FIELD_SIZE[f], 0);

/** Quality descriptor bits (SIQ and QDS share IV, NT, SB, BL; QDS adds OV; SIQ's bit 0 is the state). */
export const Quality = { OV: 0x01, BL: 0x10, SB: 0x20, NT: 0x40, IV: 0x80 } as const;
export const SPI = 0x01;
