// The embedded default's device simulator: the registered demo devices check in through the spool inbox at
// a gentle rate, with their dates following the wall clock, so `npm start` shows live data.
import { log } from '../config/log.js';
import { isScenarioImei, simulate } from '../simulator/index.js';
import type { Runtime } from './runtime.js';

export async function startSimulation(runtime: Runtime, { rate = runtime.settings.embeddedExtras.simulateRate } = {}): Promise<() => Promise<void>> {
  const { rows } = await runtime.pool.query<{ imei: string }>(`select "IMEINumber" as imei from device_information where deleted_at is null order by 1`);
  if (rows.length === 0) return async () => {};
  // The fleet scenarios' devices tell their own stories (demo-fleet.ts): the live fleet leaves them alone.
  const imeis = rows.map((r) => r.imei).filter((imei) => !isScenarioImei(imei));
  if (imeis.length === 0) return async () => {};
  const controller = new AbortController();
  // One check-in per device every devices/rate seconds, dated from now on.
  const intervalMs = Math.max(1, Math.round(imeis.length / rate)) * 1000;
  const running = simulate(
    { imeis, rate, to: 'spool', inboxDir: runtime.settings.inboxDir, startTime: Math.floor(Date.now() / 1000) * 1000, intervalMs, signal: controller.signal, seed: Date.now() % 100_000 },
    () => {},
  ).catch((err: unknown) => { if (!controller.signal.aborted) log.warn({ err: (err as Error).message }, 'simulator stopped'); });
  return async () => { controller.abort(); await running; };
}
