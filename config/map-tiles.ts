// The utility's own map tile server for the portal (docs/portal-map.md): an XYZ raster URL template with
// {z}/{x}/{y} (and optionally {s}), its attribution and its deepest zoom. Unset: the portal draws its
// offline base layer of boundaries. Read once at start with the other settings (settings.ts).
export interface MapTiles { url: string; attribution: string; maxZoom: number }

type Env = Record<string, string | undefined>;

/** MAP_TILE_URL, MAP_TILE_ATTRIBUTION, MAP_TILE_MAX_ZOOM; null when MAP_TILE_URL is unset or empty. */
export function loadMapTiles(env: Env): MapTiles | null {
  const url = env.MAP_TILE_URL?.trim();
  if (!url) return null;
  if (!/^https?:\/\//.test(url) || !['{z}', '{x}', '{y}'].every((p) => url.includes(p))) {
    throw new Error(`MAP_TILE_URL must be an http(s) URL template with {z}, {x} and {y} (an XYZ tile server), e.g. https://tiles.example/{z}/{x}/{y}.png; got ${url}`);
  }
  const maxZoom = Number(env.MAP_TILE_MAX_ZOOM ?? 19);
  if (!Number.isInteger(maxZoom) || maxZoom < 1 || maxZoom > 24) throw new Error(`MAP_TILE_MAX_ZOOM must be a whole number from 1 to 24; got ${env.MAP_TILE_MAX_ZOOM}`);
  return { url, attribution: env.MAP_TILE_ATTRIBUTION?.trim() || 'Map tiles: your utility\'s tile server', maxZoom };
}
