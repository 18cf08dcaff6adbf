// GET /api/reliability/lines and GET /api/reliability/sections (issue 43;
// docs/decisions.md#reliability-analytics-issue-43-rel-core): power lines ranked by the incidents their
// indicators saw in a period, split by kind, with tripped indicators, repeating sections and the trend against
// the previous period of the same length; and the sections of one line (or of all) with their counts and the
// line's last incidents. Read from the day tables the incident worker keeps. A masked organisation reads the
// incidents counted without the split by kind (the fault mask of app.ts then masks the rest as for any answer).
// What these figures are and are not against IEEE 1366: NOTE below, and docs/decisions.md.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { isPeriodProblem, period, previousPeriod, type Period } from '../../reliability/period.js';
import { customerIncidentsEstimate, incidentsOf, per100Km, rank, repeats, SECTIONS_PAGE, trend, type KindCounts } from '../../reliability/ranking.js';
import type { AuthEnv, Caller } from '../auth/caller.js';
import { dayParameter } from '../device-records/list-params.js';
import { acceptOnly, ApiError, badParameter } from '../errors.js';
import { powerLineParameter } from '../request.js';
import { integer } from '../incidents/routes.js';
import { getRoute } from '../read-route.js';
import { GET_LINES, GET_SECTIONS, LAST_INCIDENTS } from './endpoints.js';
import { lastIncidents, lineSectionCounts, lineSums, lineVisible, sectionSums, type LineSection, type Sums } from './store.js';

/** What every answer says it is (docs/decisions.md#reliability-analytics-issue-43-rel-core). */
export const NOTE = 'Incidents are fault currents seen by line indicators (incidents of the feeder incident worker), counted on the UTC day of their first trip. '
  + 'An indicator incident is not a customer interruption as IEEE 1366 defines one, and no figure here is an IEEE 1366 index (none is a MAIFI, SAIFI or SAIDI). '
  + 'Rates per 100 km and the customer-weighted figure use the section lengths and customer counts of the import; the customer figure is an estimate observed by indicators.';

function periodOf(from: string | undefined, to: string | undefined, now: number): Period {
  // The days every read route accepts (YYYYMMDD, within the supported years): one parser, one rule.
  const p = period(dayParameter('from', from)?.toString(), dayParameter('to', to)?.toString(), now);
  if (isPeriodProblem(p)) throw badParameter(p.parameter, p.message);
  return p;
}

/** The counts a caller reads: split by kind, or (masked organisation) the incidents alone. */
function counts(caller: Caller, s: KindCounts): Record<string, number> {
  const incidents = incidentsOf(s);
  return caller.maskFaultDetails ? { incidents } : { incidents, permanent: s.permanent, momentary: s.momentary, unknown: s.unknown };
}

const trendOf = (s: Sums) => trend(incidentsOf(s), s.previousIncidents);
const periodJson = (p: Period) => ({ from: p.from, to: p.to, days: p.days, timeZone: 'UTC' });

export function reliabilityRoutes({ pool, auth, now = Date.now }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv>; now?: () => number }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  getRoute(app, GET_LINES, [auth], async (c) => {
    acceptOnly(c.req.queries(), ['from', 'to'], { repeatable: false });
    const caller = c.get('caller');
    const current = periodOf(c.req.query('from'), c.req.query('to'), now());
    const previous = previousPeriod(current);
    const [lines, sections] = await Promise.all([lineSums(pool, caller, current, previous), lineSectionCounts(pool, caller, current)]);
    const byLine = new Map<string, LineSection[]>();
    for (const s of sections) byLine.set(s.powerLineId, [...(byLine.get(s.powerLineId) ?? []), s]);
    const data = rank(lines.map((l) => {
      const mine = byLine.get(l.powerLineId) ?? [];
      const incidents = incidentsOf(l);
      return {
        id: l.powerLineId, powerLineId: l.powerLineId, powerLineName: l.name, ...counts(caller, l), incidents, trippedIndicators: l.trippedIndicators,
        sections: mine.length, repeatingSections: mine.filter((s) => repeats(s.incidents)).length, trend: trendOf(l),
        lengthKm: l.lengthKm, incidentsPer100Km: per100Km(incidents, l.lengthKm), customers: l.customers,
        customerIncidentsEstimate: customerIncidentsEstimate(mine),
      };
    })).map(({ id: _id, ...rest }) => rest);
    return c.json({ period: periodJson(current), previousPeriod: periodJson(previous), note: NOTE, data });
  });

  getRoute(app, GET_SECTIONS, [auth], async (c) => {
    acceptOnly(c.req.queries(), ['powerLine', 'from', 'to', 'page', 'limit'], { repeatable: false });
    const page = integer(c.req.query('page'), 'page', 0, 0, 1_000_000);
    const limit = integer(c.req.query('limit'), 'limit', SECTIONS_PAGE.default, 1, SECTIONS_PAGE.max);
    const caller = c.get('caller');
    const current = periodOf(c.req.query('from'), c.req.query('to'), now());
    const previous = previousPeriod(current);
    const line = powerLineParameter(c) ?? null;
    if (line !== null && !(await lineVisible(pool, caller, line))) throw new ApiError('NOT_FOUND', 'No such power line.', { powerLine: line.slice(0, 100) });
    const [sections, last] = await Promise.all([sectionSums(pool, caller, current, previous, line), lastIncidents(pool, caller, line, LAST_INCIDENTS)]);
    const data = rank(sections.map((s) => {
      const incidents = incidentsOf(s);
      return {
        id: `${s.powerLineId}\u0000${s.sectionImei}`, powerLineId: s.powerLineId, label: s.label,
        // The upstream indicator of the section, when in reach: the map places the section there.
        imei: s.inReach ? s.sectionImei : null, Lat: s.inReach ? s.lat : null, Long: s.inReach ? s.long : null,
        ...counts(caller, s), incidents, trippedIndicators: s.trippedIndicators, repeats: repeats(incidents), trend: trendOf(s),
        lengthKm: s.lengthKm, incidentsPer100Km: per100Km(incidents, s.lengthKm), customers: s.customers,
        customerIncidentsEstimate: customerIncidentsEstimate([{ incidents, customers: s.customers }]),
      };
    })).map(({ id: _id, ...rest }) => rest);
    return c.json({
      period: periodJson(current), previousPeriod: periodJson(previous), powerLine: line, note: NOTE,
      data: data.slice(page * limit, (page + 1) * limit), page, limit, total: data.length, lastIncidents: last,
    });
  });
  return app;
}
