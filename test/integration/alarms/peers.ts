// The real servers alarm messages go to in tests: an SMTP server (smtp-server, nodemailer's author's
// server library) that offers STARTTLS with a throwaway certificate and records each message and whether
// it arrived over TLS, and an HTTP or HTTPS peer that records every request (the SMS gateway, the webhook
// receiver) and answers with a status the test sets.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { SMTPServer } from 'smtp-server';
import { makeCerts, type TestCerts } from '../multispeak/tls.js';

export interface Mail { from: string; to: string[]; raw: string; secure: boolean; user: string | null }

export interface SmtpPeer { port: number; mails: Mail[]; certs: TestCerts; stop(): Promise<void> }

export async function startSmtp({ user = 'alarms', pass = 'smtp-Pass-1234' } = {}): Promise<SmtpPeer> {
  const certs = makeCerts();
  const mails: Mail[] = [];
  const server = new SMTPServer({
    key: readFileSync(certs.key), cert: readFileSync(certs.cert),
    secure: false, // plain connect, STARTTLS offered; the client must upgrade before it may log in
    authOptional: false, allowInsecureAuth: false, logger: false, disabledCommands: [],
    onAuth(auth, session, callback) {
      if (!session.secure) return callback(new Error('STARTTLS first'));
      if (auth.username === user && auth.password === pass) return callback(null, { user: auth.username });
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'), secure: session.secure, user: (session.user as string | undefined) ?? null,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return { port, mails, certs, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export interface HttpRequestSeen { path: string; headers: IncomingHttpHeaders; body: string; at: number }

export interface HttpPeer { url: string; requests: HttpRequestSeen[]; status: number; stop(): Promise<void> }

/** A peer that records every request; over HTTPS with `tls` (a key and certificate file, e.g. from makeCerts). */
export async function startHttpPeer(tls?: { key: string; cert: string }): Promise<HttpPeer> {
  const peer = { requests: [] as HttpRequestSeen[], status: 200 } as HttpPeer;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      peer.requests.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      res.writeHead(peer.status, { 'content-type': 'application/json' }).end('{}');
    });
  };
  const server: Server = tls ? createHttpsServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  peer.url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as { port: number }).port}`;
  peer.stop = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return peer;
}
