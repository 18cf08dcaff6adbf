// Writes messages into the spool inbox the way the spool source expects: `<name>.tmp` first, then a rename
// to `<name>.json`, so the source never reads a half-written file.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OutgoingMessage, Sink } from './sink.js';

export async function spoolSink({ dir }: { dir: string }): Promise<Sink> {
  await mkdir(dir, { recursive: true });
  return {
    async write(messages: readonly OutgoingMessage[]) {
      await Promise.all(messages.map(async ({ name, body }) => {
        const tmp = join(dir, `${name}.tmp`);
        await writeFile(tmp, body);
        await rename(tmp, join(dir, `${name}.json`));
      }));
    },
    async close() {},
  };
}
