// Every read path of spec 4.2, under both prefixes, for suites that must cover "every endpoint".
import { READ_PREFIXES } from '../../../api/device-records/endpoints.js';

export const LIST_PATHS = ['/critical-data', '/map-data', '/data-log', '/all-devices', '/device-summary', '/get-table-columns'] as const;
export const IMEI_PATHS = ['/device-information/', '/device-information/data-log/', '/device-information/events/', '/device-information/load-history/'] as const;

/** The four IMEI paths of `imei` under both prefixes. */
export function imeiPaths(imei: string): string[] {
  return READ_PREFIXES.flatMap((prefix) => IMEI_PATHS.map((p) => `${prefix}${p}${imei}`));
}

export function listPaths(): string[] {
  return READ_PREFIXES.flatMap((prefix) => LIST_PATHS.map((p) => `${prefix}${p}`));
}

export const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
export type Json = Record<string, unknown>;
