// A local XYZ raster tile server for the browser suites: every /{z}/{x}/{y}.png is a generated 256 px PNG (a
// pale ground with a grid of "streets" whose spacing follows the zoom), and every request is recorded, so a
// test can check that the portal asks for tiles and that they render. No map data: the tiles only stand in
// for a utility's own tile server.
import { createServer, type Server } from 'node:http';
import { deflateSync } from 'node:zlib';

const CRC = Array.from({ length: 256 }, (_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
const crc32 = (b: Buffer) => { let c = 0xffffffff; for (const x of b) c = CRC[(c ^ x) & 0xff]! ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A 256x256 RGB PNG: ground colour with street lines every `spacing` px (thicker every fourth). */
export function streetTile(z: number, x: number, y: number): Buffer {
  const spacing = Math.max(16, 64 >> Math.max(0, 16 - z));
  const raw = Buffer.alloc(256 * (1 + 256 * 3));
  for (let row = 0; row < 256; row++) {
    const o = row * (1 + 256 * 3);
    raw[o] = 0;
    for (let col = 0; col < 256; col++) {
      const gy = (y * 256 + row) % spacing, gx = (x * 256 + col) % spacing;
      const major = ((y * 256 + row) % (spacing * 4) < 4) || ((x * 256 + col) % (spacing * 4) < 4);
      const street = gy < 2 || gx < 2 || major;
      const [r, g, b] = street ? (major ? [250, 214, 120] : [255, 255, 255]) : [234, 230, 220];
      raw[o + 1 + col * 3] = r; raw[o + 2 + col * 3] = g; raw[o + 3 + col * 3] = b;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(256, 0); ihdr.writeUInt32BE(256, 4); ihdr[8] = 8; ihdr[9] = 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

export interface TileServer { url: string; requests: string[]; close(): Promise<void> }

/** Serves generated tiles on a loopback port; `url` is the XYZ template to configure. */
export async function startTileServer(): Promise<TileServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const m = /^\/(\d+)\/(\d+)\/(\d+)\.png$/.exec(req.url ?? '');
    requests.push(req.url ?? '');
    if (!m) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' });
    res.end(streetTile(Number(m[1]), Number(m[2]), Number(m[3])));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/{z}/{x}/{y}.png`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
