// Causes of transmission (IEC 60870-5-101 clause 7.2.3) this station sends or recognises.
export const Cot = {
  PERIODIC: 1, BACKGROUND: 2, SPONTANEOUS: 3, INITIALISED: 4, REQUEST: 5,
  ACTIVATION: 6, ACTIVATION_CON: 7, DEACTIVATION: 8, DEACTIVATION_CON: 9, ACTIVATION_TERM: 10,
  INTERROGATED_BY_STATION: 20,
  // 21..36: interrogated by group 1..16.
  UNKNOWN_TYPE: 44, UNKNOWN_COT: 45, UNKNOWN_CA: 46, UNKNOWN_IOA: 47,
} as const;

/** COT of an answer to group interrogation g (1..16). */
export const groupCot = (g: number): number => 20 + g;
