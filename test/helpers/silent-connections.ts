// A persistent stranger for the SCADA listener attacks (issue 41, finding 5): silent TCP connections (no ClientHello)
// from eight loopback addresses, 127.0.0.2..127.0.0.9, eight each, every one opened again as the listener cuts it.
import { connect, type Socket } from 'node:net';
import { waitFor } from '../../support/wait-for.js';

export interface SilentAttack { stop(): void }

/** Starts the attack on `port` and resolves once all 8 x 8 connections were open at least once. */
export async function silentConnections(port: number): Promise<SilentAttack> {
  let attacking = true;
  const open = new Set<Socket>();
  let connected = 0;
  const connectFrom = (address: string) => {
    if (!attacking) return;
    const s = connect({ host: '127.0.0.1', port, localAddress: address });
    open.add(s);
    s.on('error', () => {});
    s.once('connect', () => connected++);
    s.once('close', () => { open.delete(s); if (attacking) setTimeout(() => connectFrom(address), 100); });
  };
  for (let a = 2; a <= 9; a++) for (let j = 0; j < 8; j++) connectFrom(`127.0.0.${a}`);
  await waitFor('64 silent connections opened', () => connected >= 64);
  return { stop: () => { attacking = false; for (const s of open) s.destroy(); } };
}
