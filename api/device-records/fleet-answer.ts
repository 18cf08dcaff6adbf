// A fleet-wide answer (map-data) as it goes on the wire: computed at most once a second per caller's view
// (short-cache.ts), serialized and encoded to bytes once, with a strong ETag and a gzip copy made on first
// demand. The map of 10,000 devices is 2.5 MB of JSON: serializing it per request cost ~5 ms of a core, sending
// it whole 200 times a second is 500 MB/s; a poll that already holds it gets 304, a browser gets ~15x fewer
// bytes (docs/decisions.md#storage-lifecycle).
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback, constants } from 'node:zlib';

const gzip = promisify(gzipCallback);

export class FleetAnswer {
  readonly etag: string;
  /** The JSON as the bytes that go on the wire, encoded once: sent as text, each request encoded all 2.5 MB again. */
  readonly json: Uint8Array<ArrayBuffer>;
  private gzipped: Promise<Uint8Array<ArrayBuffer>> | undefined;

  constructor(text: string) {
    const bytes = Buffer.from(text, 'utf8');
    this.json = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.etag = `"${createHash('sha1').update(this.json).digest('base64url')}"`;
  }

  /** The gzip body, compressed once (level 1: 2.5 MB in ~4.5 ms to 161 kB; the default level 6 takes 3x the CPU for 112 kB). */
  gzip(): Promise<Uint8Array<ArrayBuffer>> {
    this.gzipped ??= gzip(this.json, { level: constants.Z_BEST_SPEED }).then((b) => new Uint8Array(b));
    return this.gzipped;
  }
}

