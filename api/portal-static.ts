// The web portal (portal/, built by Vite into portal/dist) served from the API's origin, so the JWT of
// /api/auth/login is all it needs. Mounted after every API route: it answers only GET/HEAD, never a path
// of the API (RESERVED), and falls back to index.html only for page navigations (Accept: text/html) on
// paths without a file extension, so a wrong API URL or a missing asset still gets the JSON 404.
//
// Cache headers: Vite puts a content hash in every file under /assets/, so those are immutable for a year;
// index.html (which names the current hashes) is revalidated on every load, so a new build shows at once.
import { readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { Hono } from 'hono';

/** Path prefixes that belong to the API; the portal never answers under them. */
export const RESERVED_PREFIXES = ['/api', '/device-records', '/healthz', '/readyz', '/metrics', '/openapi.json', '/soap'] as const;

export const DEFAULT_PORTAL_DIR = new URL('../portal/dist/', import.meta.url).pathname;

/**
 * The portal's Content-Security-Policy (docs/decisions.md#hostile-callers): scripts, styles, fonts and data
 * only from this origin, so markup that reached the page from imported names could run nothing. Images also
 * from any http(s) origin: the map's tile server is chosen per browser ("Map settings"). Inline style
 * attributes stay allowed (Leaflet positions every marker and tile with them); no inline script is.
 */
export const PORTAL_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob: https: http:",
  "connect-src 'self'", "font-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8', '.map': 'application/json',
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>faultline portal not built</title>
<p>The web portal has not been built. Run <code>npm run build:portal</code> (or <code>npm ci</code>, which builds it) and reload.</p>`;

const reserved = (path: string) => RESERVED_PREFIXES.some((p) => path === p || path.startsWith(p + '/') || path.startsWith(p + '?'));

function fileIn(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const full = normalize(join(root, decoded));
  // normalize() resolves `..`; anything that lands outside the root is refused.
  if (!full.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  try {
    return statSync(full).isFile() ? full : null;
  } catch {
    return null;
  }
}

export interface PortalOptions {
  /** Directory of the built portal; default portal/dist of this checkout. */
  dir?: string;
}

/**
 * @example
 *   app.route('/', portalRoutes()); // after the API routes
 */
export function portalRoutes({ dir = DEFAULT_PORTAL_DIR }: PortalOptions = {}): Hono {
  const root = normalize(dir);
  const app = new Hono();
  app.on(['GET', 'HEAD'], '*', async (c, next) => {
    const path = c.req.path;
    if (reserved(path)) return next();
    const file = path === '/' ? null : fileIn(root, path);
    if (file) {
      const immutable = path.startsWith('/assets/');
      return c.body(readFileSync(file), 200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        'x-content-type-options': 'nosniff',
        'content-security-policy': PORTAL_CSP,
      });
    }
    const wantsPage = path === '/' || (extname(path) === '' && (c.req.header('accept') ?? '').includes('text/html'));
    if (!wantsPage) return next();
    const index = fileIn(root, '/index.html');
    const headers = { 'content-type': TYPES['.html']!, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'content-security-policy': PORTAL_CSP };
    if (!index) return c.body(NOT_BUILT, 503, headers);
    return c.body(readFileSync(index), 200, headers);
  });
  return app;
}
