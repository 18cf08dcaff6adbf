// The shape of GET /api/deenergised-sections (api/deenergised-sections/routes.ts): possible de-energised sections,
// line-powered indicators silent together below one point of a feeder with no trip (docs/decisions.md#silent-device-triage).
/** An indicator in the caller's reach (null: outside it). */
export interface SectionIndicator { IMEINumber: string; name: string | null; Lat: number | null; Long: number | null }

export interface DeenergisedSection {
  id: number;
  powerLineId: string;
  powerLineName: string | null;
  status: 'open' | 'closed';
  label: string;
  phase: string;
  point: SectionIndicator | null;
  upstream: SectionIndicator | null;
  silentSince: string;
  openedAt: string;
  closedAt: string | null;
  closedReason: string | null;
  silentDevices: number;
  devices: (SectionIndicator & { silentSince: string })[];
}

/** One line naming a section, for tooltips and lists. */
export const deenergisedText = (s: DeenergisedSection): string =>
  `Possible de-energised section ${s.label} on ${s.powerLineName ?? s.powerLineId}: ${s.silentDevices} line-powered indicator${s.silentDevices === 1 ? '' : 's'} silent`
  + `${s.point ? ` from ${s.point.name ?? s.point.IMEINumber} down` : ''}, no trip`;
