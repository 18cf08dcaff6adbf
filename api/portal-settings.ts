// GET /api/portal-settings: what the portal needs from this process's configuration (any signed-in user):
// the map's tile server (MAP_TILE_URL, config/map-tiles.ts), or null for the offline base layer.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type { AuthEnv } from './auth/caller.js';
import type { MapTiles } from '../config/map-tiles.js';
import { AUTH_401, json } from './openapi-kit.js';
import { getRoute, readRoute } from './read-route.js';

export const PORTAL_SETTINGS_PATH = '/api/portal-settings';

/** Registered and described from this entry (read-route.ts). */
export const GET_PORTAL_SETTINGS = readRoute({
  path: PORTAL_SETTINGS_PATH, operationId: 'getPortalSettings', tag: 'portal', summary: 'Settings the web portal reads from the configuration',
  description: 'mapTiles: the utility\'s XYZ tile server (MAP_TILE_URL, MAP_TILE_ATTRIBUTION, MAP_TILE_MAX_ZOOM), or null when none is configured (the portal draws its offline base layer).',
  responses: {
    200: {
      description: 'OK',
      ...json({ type: 'object', required: ['mapTiles'], additionalProperties: false, properties: {
        mapTiles: { oneOf: [{ type: 'null' }, { type: 'object', required: ['url', 'attribution', 'maxZoom'], additionalProperties: false, properties: { url: { type: 'string' }, attribution: { type: 'string' }, maxZoom: { type: 'integer' } } }] },
      } }),
    },
    ...AUTH_401,
  },
});

export function portalSettingsRoutes({ auth, mapTiles }: { auth: MiddlewareHandler<AuthEnv>; mapTiles: MapTiles | null }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  getRoute(app, GET_PORTAL_SETTINGS, [auth], (c) => c.json({ mapTiles }));
  return app;
}
