// The shapes of GET /api/reliability/lines and /sections (api/reliability/routes.ts). A masked organisation's
// answers carry `incidents` without the split by kind, so the split fields are optional.
export interface Trend { previousIncidents: number; change: number; direction: 'up' | 'down' | 'same' }
export interface Counts { incidents: number; permanent?: number; momentary?: number; unknown?: number; trippedIndicators: number }
export interface Figures { lengthKm: number | null; incidentsPer100Km: number | null; customers: number | null; customerIncidentsEstimate: number | null }
export interface PeriodJson { from: string; to: string; days: number; timeZone: 'UTC' }

export interface ReliabilityLine extends Counts, Figures {
  rank: number; powerLineId: string; powerLineName: string | null; sections: number; repeatingSections: number; trend: Trend;
}
export interface ReliabilitySection extends Counts, Figures {
  rank: number; powerLineId: string; label: string; imei: string | null; Lat: number | null; Long: number | null; repeats: boolean; trend: Trend;
}
export interface LastIncident { id: number; powerLineId: string; kind: string; status: string; firstTripAt: string; sections: string[]; trippedDevices: number }

export interface LinesAnswer { period: PeriodJson; previousPeriod: PeriodJson; note: string; data: ReliabilityLine[] }
/** One page of ranked sections (`total` in all pages): the view shows a line's first page, the sections with the most incidents. */
export interface SectionsAnswer { period: PeriodJson; previousPeriod: PeriodJson; powerLine: string | null; note: string; data: ReliabilitySection[]; page: number; limit: number; total: number; lastIncidents: LastIncident[] }

/** Whether the answer splits incidents by kind (absent for a masked organisation). */
export const splitsKinds = (rows: readonly Counts[]): boolean => rows.some((r) => r.permanent !== undefined);
