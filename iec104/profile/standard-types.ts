// The type identifications the interoperability list of IEC 60870-5-104 (clause 9.5, selection of standard
// ASDUs) asks about, by group, as the standard numbers them. `not104`: types with CP24Time2a and the two
// commands the 104 companion standard does not use (IEC 60870-5-104 clause 8.5 and 9.5); the list marks them so.
// Facts of the standard only: what this station does comes from asdu/types.ts and station/application.ts.

export type TypeGroup = 'process information in monitor direction' | 'process information in control direction'
  | 'system information in monitor direction' | 'system information in control direction' | 'parameter in control direction' | 'file transfer';

export interface StandardType { id: number; name: string; description: string; group: TypeGroup; not104?: true }

const t = (group: TypeGroup, rows: [number, string, string, true?][]): StandardType[] =>
  rows.map(([id, name, description, not104]) => ({ id, name, description, group, ...(not104 ? { not104 } : {}) }));

export const STANDARD_TYPES: readonly StandardType[] = [
  ...t('process information in monitor direction', [
    [1, 'M_SP_NA_1', 'single-point information'],
    [2, 'M_SP_TA_1', 'single-point information with time tag', true],
    [3, 'M_DP_NA_1', 'double-point information'],
    [4, 'M_DP_TA_1', 'double-point information with time tag', true],
    [5, 'M_ST_NA_1', 'step position information'],
    [6, 'M_ST_TA_1', 'step position information with time tag', true],
    [7, 'M_BO_NA_1', 'bitstring of 32 bit'],
    [8, 'M_BO_TA_1', 'bitstring of 32 bit with time tag', true],
    [9, 'M_ME_NA_1', 'measured value, normalized value'],
    [10, 'M_ME_TA_1', 'measured value, normalized value with time tag', true],
    [11, 'M_ME_NB_1', 'measured value, scaled value'],
    [12, 'M_ME_TB_1', 'measured value, scaled value with time tag', true],
    [13, 'M_ME_NC_1', 'measured value, short floating point value'],
    [14, 'M_ME_TC_1', 'measured value, short floating point value with time tag', true],
    [15, 'M_IT_NA_1', 'integrated totals'],
    [16, 'M_IT_TA_1', 'integrated totals with time tag', true],
    [17, 'M_EP_TA_1', 'event of protection equipment with time tag', true],
    [18, 'M_EP_TB_1', 'packed start events of protection equipment with time tag', true],
    [19, 'M_EP_TC_1', 'packed output circuit information of protection equipment with time tag', true],
    [20, 'M_PS_NA_1', 'packed single-point information with status change detection'],
    [21, 'M_ME_ND_1', 'measured value, normalized value without quality descriptor'],
    [30, 'M_SP_TB_1', 'single-point information with time tag CP56Time2a'],
    [31, 'M_DP_TB_1', 'double-point information with time tag CP56Time2a'],
    [32, 'M_ST_TB_1', 'step position information with time tag CP56Time2a'],
    [33, 'M_BO_TB_1', 'bitstring of 32 bit with time tag CP56Time2a'],
    [34, 'M_ME_TD_1', 'measured value, normalized value with time tag CP56Time2a'],
    [35, 'M_ME_TE_1', 'measured value, scaled value with time tag CP56Time2a'],
    [36, 'M_ME_TF_1', 'measured value, short floating point value with time tag CP56Time2a'],
    [37, 'M_IT_TB_1', 'integrated totals with time tag CP56Time2a'],
    [38, 'M_EP_TD_1', 'event of protection equipment with time tag CP56Time2a'],
    [39, 'M_EP_TE_1', 'packed start events of protection equipment with time tag CP56Time2a'],
    [40, 'M_EP_TF_1', 'packed output circuit information of protection equipment with time tag CP56Time2a'],
  ]),
  ...t('process information in control direction', [
    [45, 'C_SC_NA_1', 'single command'],
    [46, 'C_DC_NA_1', 'double command'],
    [47, 'C_RC_NA_1', 'regulating step command'],
    [48, 'C_SE_NA_1', 'set point command, normalized value'],
    [49, 'C_SE_NB_1', 'set point command, scaled value'],
    [50, 'C_SE_NC_1', 'set point command, short floating point value'],
    [51, 'C_BO_NA_1', 'bitstring of 32 bit'],
    [58, 'C_SC_TA_1', 'single command with time tag CP56Time2a'],
    [59, 'C_DC_TA_1', 'double command with time tag CP56Time2a'],
    [60, 'C_RC_TA_1', 'regulating step command with time tag CP56Time2a'],
    [61, 'C_SE_TA_1', 'set point command, normalized value with time tag CP56Time2a'],
    [62, 'C_SE_TB_1', 'set point command, scaled value with time tag CP56Time2a'],
    [63, 'C_SE_TC_1', 'set point command, short floating point value with time tag CP56Time2a'],
    [64, 'C_BO_TA_1', 'bitstring of 32 bit with time tag CP56Time2a'],
  ]),
  ...t('system information in monitor direction', [
    [70, 'M_EI_NA_1', 'end of initialization'],
  ]),
  ...t('system information in control direction', [
    [100, 'C_IC_NA_1', 'interrogation command'],
    [101, 'C_CI_NA_1', 'counter interrogation command'],
    [102, 'C_RD_NA_1', 'read command'],
    [103, 'C_CS_NA_1', 'clock synchronization command'],
    [104, 'C_TS_NA_1', 'test command', true],
    [105, 'C_RP_NA_1', 'reset process command'],
    [106, 'C_CD_NA_1', 'delay acquisition command', true],
    [107, 'C_TS_TA_1', 'test command with time tag CP56Time2a'],
  ]),
  ...t('parameter in control direction', [
    [110, 'P_ME_NA_1', 'parameter of measured value, normalized value'],
    [111, 'P_ME_NB_1', 'parameter of measured value, scaled value'],
    [112, 'P_ME_NC_1', 'parameter of measured value, short floating point value'],
    [113, 'P_AC_NA_1', 'parameter activation'],
  ]),
  ...t('file transfer', [
    [120, 'F_FR_NA_1', 'file ready'],
    [121, 'F_SR_NA_1', 'section ready'],
    [122, 'F_SC_NA_1', 'call directory, select file, call file, call section'],
    [123, 'F_LS_NA_1', 'last section, last segment'],
    [124, 'F_AF_NA_1', 'ack file, ack section'],
    [125, 'F_SG_NA_1', 'segment'],
    [126, 'F_DR_TA_1', 'directory'],
    [127, 'F_SC_NB_1', 'query log, request archive file'],
  ]),
];
