// GET /api/portal-settings: what the portal needs from this process's configuration (any signed-in user):
// the map's tile server (MAP_TILE_URL, config/map-tiles.ts), or null for the offline base layer.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type { AuthEnv } from './auth/caller.js';
import type { MapTiles } from '../config/map-tiles.js';
import { AUTH_401 } from './openapi-kit.js';

export const PORTAL_SETTINGS_PATH = '/api/portal-settings';

export function portalSettingsRoutes({ auth, mapTiles }: { auth: MiddlewareHandler<AuthEnv>; mapTiles: MapTiles | null }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get(PORTAL_SETTINGS_PATH, auth, (c) => c.json({ mapTiles }));
  return app;
}

type Obj = Record<string, unknown>;
/** The OpenAPI path of this route (merged by openapi/document.ts). */
export const PORTAL_SETTINGS_OPENAPI: Record<string, Obj> = {
  [PORTAL_SETTINGS_PATH]: {
    get: {
      operationId: 'getPortalSettings', tags: ['portal'], summary: 'Settings the web portal reads from the configuration',
      description: 'mapTiles: the utility\'s XYZ tile server (MAP_TILE_URL, MAP_TILE_ATTRIBUTION, MAP_TILE_MAX_ZOOM), or null when none is configured (the portal draws its offline base layer).',
      security: [{ bearerAuth: [] }],
      responses: {
        200: {
          description: 'OK',
          content: { 'application/json': { schema: { type: 'object', required: ['mapTiles'], additionalProperties: false, properties: {
            mapTiles: { oneOf: [{ type: 'null' }, { type: 'object', required: ['url', 'attribution', 'maxZoom'], additionalProperties: false, properties: { url: { type: 'string' }, attribution: { type: 'string' }, maxZoom: { type: 'integer' } } }] },
          } } } },
        },
        ...AUTH_401,
      },
    },
  },
};
