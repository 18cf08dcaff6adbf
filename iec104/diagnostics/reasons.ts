// Why the station refused or discarded what a controlling station sent: one sentence per reason, written for
// the engineer who configures the master (like dnp3/diagnostics/reasons.ts). Counted per integration and shown
// by GET /api/iec104/diagnostics (docs/iec104.md#5-what-the-master-did-wrong).
import type { ListenerRefusal } from '../../integrations/master-listener.js';

export const REFUSAL_REASONS = {
  unknownType: 'The master sent a type identification this station does not support (it has no outputs to command): it answered with cause 44, negative. Remove the command from the master\'s configuration for this station.',
  unknownCause: 'The master sent a command with a cause of transmission the command does not allow (activation expected; read: request): it answered with cause 45, negative.',
  unknownCommonAddress: 'The master addressed a common address (ASDU address) this station does not serve: it answered with cause 46, negative. Configure the common addresses of the point map (one per bank).',
  unknownIoa: 'The master addressed an information object address this station does not have (station commands use IOA 0): it answered with cause 47, negative. Check the IOAs against the point map.',
  interrogationRunning: 'The master sent an interrogation (C_IC_NA_1) while the answer to its previous one was still being sent on this connection: it answered with a negative activation confirmation (P/N = 1). Wait for the activation termination (COT 10) before the next interrogation.',
  malformedAsdu: 'The master sent an ASDU whose length does not match its type and number of objects: it was discarded.',
  malformedApci: 'The master sent an APDU with a bad start octet, length or control field: the connection was closed (IEC 104 cannot resynchronise a stream).',
  sequenceError: 'The master\'s send sequence number N(S) was not the one expected, or its N(R) acknowledged frames never sent: the connection was closed (IEC 104 clause 5.1). Check the master\'s sequence handling.',
  missingStartdt: 'The master sent data (an I frame) before STARTDT act: the connection was closed. The master must start data transfer first.',
  replyQueueFull: 'The master sent commands faster than it acknowledged their answers: more replies waited for its acknowledgements than the station keeps for one connection, and the connection was closed (its replies discarded). Acknowledge received I frames (w, t2) and wait for answers before sending more commands.',
  t1Expired: 'The master did not acknowledge sent I frames (or answer TESTFR act) within t1: the connection was closed. Check the master\'s w and t2 against this station\'s k and t1.',
  // Refused by the mutual-TLS listener before any APDU (integrations/master-listener.ts; IEC 62351-3). Only the
  // last three are counted for an integration: the certificate was trusted and named it (docs/decisions.md#master-diagnostics).
  tlsHandshake: 'The TLS handshake failed: the master sent no client certificate, one no configured CA signed, or offered a TLS version below 1.2 (or did not finish the handshake in time): the connection was refused before any APDU (IEC 62351-3). Give the master a client certificate from the integration\'s CA (caFile, else the service CA) and TLS 1.2 or 1.3.',
  tlsUnknownIdentity: 'The master\'s certificate is trusted but neither its DNS SANs nor (without a DNS SAN) its CN is the masterIdentity of an integration of kind iec104 on this port: the connection was refused. Put the integration\'s masterIdentity in the certificate, or the certificate\'s name in the integration.',
  tlsAmbiguousIdentity: 'The master\'s certificate names the masterIdentity of more than one integration: the connection was refused rather than guessed. Give each integration its own master identity.',
  tlsPinMismatch: 'The master\'s certificate names this integration, which pins one certificate (certificateMode pinned), but it is not that certificate (SHA-256 fingerprint differs): the connection was refused. Install the pinned certificate in the master, or pin the one it has.',
  tlsWrongIssuer: 'The master\'s certificate names this integration but was issued by a CA other than the integration\'s (its caFile, else the service CA): the connection was refused. Use a certificate from the integration\'s CA.',
  tlsVersion: 'The master negotiated TLS 1.2 but this integration requires TLS 1.3 (tlsMinVersion): the connection was refused. Enable TLS 1.3 in the master, or set the integration\'s tlsMinVersion to 1.2.',
  connectionCap: 'Too many TLS handshakes or connections at once (from one address, or in all): the connection was closed before any TLS work. A master must not reconnect in a tight loop; wait t0 between attempts.',
} as const;

export type RefusalReason = keyof typeof REFUSAL_REASONS;

export const isRefusalReason = (r: string): r is RefusalReason => Object.hasOwn(REFUSAL_REASONS, r);

/** The reason of each refusal the shared listener makes before the station sees the connection. */
export const LISTENER_REASONS: Readonly<Record<ListenerRefusal, RefusalReason>> = {
  handshake: 'tlsHandshake', noCertificate: 'tlsHandshake', unknownIdentity: 'tlsUnknownIdentity', ambiguousIdentity: 'tlsAmbiguousIdentity',
  pinMismatch: 'tlsPinMismatch', wrongIssuer: 'tlsWrongIssuer', tlsVersion: 'tlsVersion', busy: 'connectionCap',
};
