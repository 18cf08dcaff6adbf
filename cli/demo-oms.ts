// The demo's outage management systems. The demo data (a copy of the fixture import) has MultiSpeak
// integrations that deliver to loopback endpoints (http://127.0.0.1:18080/soap/OA_Server, ...); nothing
// listens there on a newcomer's machine, so the delivery worker would retry and log failures forever. With
// the demo data, `npm start` answers those endpoints itself: a minimal OA_Server that accepts every
// notification with an empty <Operation>Response and logs what arrived, so the whole path (fault ->
// outbox -> SOAP delivery) is visible. Only plain-HTTP loopback endpoints are served; a port already taken
// (a real OMS simulator, say) is left alone.
import { createServer, type Server } from 'node:http';
import { log } from '../config/log.js';

export interface DemoEndpoint { integration: string; endpoint: string }

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The endpoints of an import file's MultiSpeak integrations that a local listener can serve: http, a
 * loopback host, an explicit port.
 */
export function servableEndpoints(importFile: unknown): DemoEndpoint[] {
  const integrations = (importFile as { integrations?: unknown } | null)?.integrations;
  if (!Array.isArray(integrations)) return [];
  const out: DemoEndpoint[] = [];
  for (const i of integrations as { id?: unknown; kind?: unknown; endpoint?: unknown }[]) {
    if (i?.kind !== 'multispeak' || typeof i.endpoint !== 'string' || typeof i.id !== 'string') continue;
    const url = URL.canParse(i.endpoint) ? new URL(i.endpoint) : null;
    if (url?.protocol === 'http:' && LOOPBACK.has(url.hostname) && url.port) out.push({ integration: i.id, endpoint: i.endpoint });
  }
  return out;
}

/** The operation a SOAP request carries: the first element inside soap:Body. */
export function soapOperation(body: string): string | null {
  return /<(?:[\w.-]+:)?Body\b[^>]*>\s*<(?:[\w.-]+:)?([A-Za-z][\w.-]*)/.exec(body)?.[1] ?? null;
}

function emptyResponse(operation: string, namespace: string): string {
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><${operation}Response xmlns="${namespace}"/></soap:Body></soap:Envelope>`;
}

/** Starts one listener per port (its endpoints told apart by path); `close` stops them. */
export async function startDemoOms(endpoints: readonly DemoEndpoint[]): Promise<{ serving: DemoEndpoint[]; close(): Promise<void> }> {
  const byPort = new Map<string, { host: string; port: number; paths: Map<string, DemoEndpoint> }>();
  for (const e of endpoints) {
    const url = new URL(e.endpoint);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const key = `${host}:${url.port}`;
    if (!byPort.has(key)) byPort.set(key, { host, port: Number(url.port), paths: new Map() });
    byPort.get(key)!.paths.set(url.pathname, e);
  }
  const servers: Server[] = [];
  const serving: DemoEndpoint[] = [];
  for (const { host, port, paths } of byPort.values()) {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => { size += c.length; if (size <= MAX_BODY_BYTES) chunks.push(c); });
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const target = req.method === 'POST' ? paths.get(req.url ?? '') : undefined;
        const operation = target && size <= MAX_BODY_BYTES ? soapOperation(body) : null;
        if (!target || !operation) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end('demo OMS: POST a SOAP request to an integration endpoint');
          return;
        }
        const namespace = /xmlns(?::\w+)?="(http:\/\/www\.multispeak\.org\/[^"]+)"/.exec(body)?.[1] ?? 'http://www.multispeak.org/Version_4.1_Release';
        log.info({ component: 'demo-oms', integration: target.integration, operation, bytes: size }, 'demo OMS received a notification');
        res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' }).end(emptyResponse(operation, namespace));
      });
    });
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, host, () => resolve(true));
    });
    if (!listening) {
      log.warn({ component: 'demo-oms', port, integrations: [...paths.values()].map((e) => e.integration) }, 'demo OMS: port in use, not serving these endpoints');
      continue;
    }
    servers.push(server);
    serving.push(...paths.values());
  }
  return {
    serving,
    async close() {
      await Promise.all(servers.map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
    },
  };
}
