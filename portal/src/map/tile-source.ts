// Where the map's base tiles come from: a tile server chosen in this browser ("Map settings"), else the one
// the faultline operator configured (MAP_TILE_URL, config/map-tiles.ts, served by GET /api/portal-settings),
// else none: the offline base layer of boundaries (offline-base-layer.ts).
export interface MapTiles { url: string; attribution: string; maxZoom: number }

/** GET /api/portal-settings. */
export interface PortalSettings { mapTiles: MapTiles | null }

const KEY = 'faultline.tileUrl';

/** The tile URL saved in this browser; null when none was saved (the configured one applies). */
export function browserTileUrl(): string | null {
  return localStorage.getItem(KEY);
}

/** Saves this browser's choice: a URL, '' for the offline layer, null to follow the configured server again. */
export function saveBrowserTileUrl(url: string | null): void {
  if (url === null) localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, url);
}

/** The tiles to draw: this browser's choice over the configured server; null: the offline layer. */
export function chosenTiles(browser: string | null, configured: MapTiles | null): MapTiles | null {
  if (browser === null) return configured;
  if (browser === '') return null;
  return { url: browser, attribution: 'Map tiles: this browser\'s tile server', maxZoom: configured?.maxZoom ?? 19 };
}
