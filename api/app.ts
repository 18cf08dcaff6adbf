// The HTTP application: one Hono app composed of a router per capability. Capabilities land here as they
// are built (auth, device-records, integration REST, SOAP).
import { Hono } from 'hono';
import { renderError, notFound } from './errors.js';
import { healthRoutes, type ReadinessCheck } from './health/routes.js';

export interface AppOptions {
  readiness: Record<string, ReadinessCheck>;
}

export function createApp({ readiness }: AppOptions): Hono {
  const app = new Hono();
  app.route('/', healthRoutes(readiness));
  app.notFound(notFound);
  app.onError(renderError);
  return app;
}
