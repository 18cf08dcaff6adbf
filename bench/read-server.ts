// The read API alone on a kept database, for the storage bench's `--compare` (bench/storage-compare.ts): started
// by the driver in this checkout and, copied in, in the older commit's work tree, so each side answers with its
// own code on the same rows. Prints one JSON line {"port": n} when it listens. With READ_SERVER_PROFILE=<file>,
// SIGUSR2 starts the CPU profiler (answered by {"profiling": true}) and SIGTERM writes the profile there before
// exiting, so the profile holds the requests, not the start-up. Exits on SIGTERM or SIGINT.
//
//   node --import tsx bench/read-server.ts <database>
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { listen } from '../api/server.js';
import { openTestDatabase } from '../support/database.js';
import { readApp } from './read-rows.js';

const name = process.argv[2];
if (!name) throw new Error('usage: read-server.ts <database>');
const profileFile = process.env.READ_SERVER_PROFILE;
const db = await openTestDatabase(name);
const server = await listen(readApp(db.pool), { port: 0, hostname: '127.0.0.1' });
let session: Session | null = null;
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
process.on('SIGUSR2', () => {
  if (!profileFile || session) return;
  session = new Session();
  session.connect();
  void session.post('Profiler.enable').then(() => session!.post('Profiler.start')).then(() => process.stdout.write(`${JSON.stringify({ profiling: true })}\n`));
});
const stop = async () => {
  if (session && profileFile) writeFileSync(profileFile, JSON.stringify((await session.post('Profiler.stop')).profile));
  await server.close();
  await db.pool.end();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
