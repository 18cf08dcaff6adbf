// The DNP3 outstation component of `faultline start`. It serves mutual TLS on DNP3_PORT (default 20000) with the
// SCADA certificate both master listeners share (cli/scada-tls.ts; development certificates on the embedded
// default). DNP3_PLAIN_INTEGRATION=<integration id> serves plain TCP for that one integration (development only).
import { log } from '../config/log.js';
import { fixedPorts, type Settings } from '../config/settings.js';
import { startDnp3Service } from '../dnp3/service.js';
import { whereListening } from './listening.js';
import type { Runtime } from './runtime.js';
import { scadaTlsFiles, scadaTlsUnconfigured } from './scada-tls.js';

/**
 * Why the outstation cannot start, or null when it can: outside the embedded default it needs the SCADA TLS files
 * (mutual TLS), or DNP3_PLAIN_INTEGRATION for development. (Half a TLS configuration is refused when the settings
 * are read: config/settings.ts.)
 */
export function dnp3Unconfigured(embedded: boolean, settings: Pick<Settings, 'scadaTls' | 'dnp3'>): string | null {
  if (settings.dnp3.plainIntegration) return null;
  const why = scadaTlsUnconfigured(embedded, settings);
  return why ? `off: ${why}` : null;
}

export async function startDnp3(runtime: Runtime): Promise<{ description: string; close(): Promise<void> }> {
  const { port, plainIntegration } = runtime.settings.dnp3;
  // Plain TCP for development only when no TLS files are configured.
  const files = runtime.settings.scadaTls ?? (plainIntegration ? undefined : scadaTlsFiles(runtime));
  const service = await startDnp3Service({
    pool: runtime.pool, port, host: runtime.settings.httpHost, reserved: fixedPorts(runtime.settings), range: runtime.settings.scadaDedicatedPorts, offlineAfterHours: runtime.settings.offlineAfterHours, checkinFloorS: runtime.settings.alarms.checkinFloorS,
    ...(files ? { tlsFiles: files } : {}),
    ...(plainIntegration ? { plainIntegrationId: plainIntegration } : {}),
    onError: (err) => log.warn({ component: 'dnp3', err: (err as Error).message }, 'outstation error'),
  });
  const mode = files ? `mutual TLS, CA ${files.ca}` : `plain TCP for ${plainIntegration} (development only)`;
  return { description: `DNP3 outstation on TCP ${whereListening(runtime.settings.httpHost, service.server.port)} (${mode}; integrations reloaded on change or SIGHUP)`, close: () => service.close() };
}
