// Why the station refused or discarded what a controlling station sent: one sentence per reason, written for
// the engineer who configures the master (like dnp3/diagnostics/reasons.ts).
export const REFUSAL_REASONS = {
  unknownType: 'The master sent a type identification this station does not support (it has no outputs to command): it answered with cause 44, negative. Remove the command from the master\'s configuration for this station.',
  unknownCause: 'The master sent a command with a cause of transmission the command does not allow (activation expected; read: request): it answered with cause 45, negative.',
  unknownCommonAddress: 'The master addressed a common address (ASDU address) this station does not serve: it answered with cause 46, negative. Configure the common addresses of the point map (one per bank).',
  unknownIoa: 'The master addressed an information object address this station does not have (station commands use IOA 0): it answered with cause 47, negative. Check the IOAs against the point map.',
  malformedAsdu: 'The master sent an ASDU whose length does not match its type and number of objects: it was discarded.',
  malformedApci: 'The master sent an APDU with a bad start octet, length or control field: the connection was closed (IEC 104 cannot resynchronise a stream).',
  sequenceError: 'The master\'s send sequence number N(S) was not the one expected, or its N(R) acknowledged frames never sent: the connection was closed (IEC 104 clause 5.1). Check the master\'s sequence handling.',
  missingStartdt: 'The master sent data (an I frame) before STARTDT act: the connection was closed. The master must start data transfer first.',
  t1Expired: 'The master did not acknowledge sent I frames (or answer TESTFR act) within t1: the connection was closed. Check the master\'s w and t2 against this station\'s k and t1.',
  tlsRefused: 'The master\'s TLS client certificate was missing, not trusted, not mapped to an integration of kind iec104, or its TLS version too old: the connection was refused (IEC 62351-3).',
} as const;

export type RefusalReason = keyof typeof REFUSAL_REASONS;
