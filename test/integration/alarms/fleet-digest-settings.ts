// What the fleet digest crash suite and its child process share: the summary a digest carries. The suite is about
// when a digest is queued, not its counts (fleet-digest.test.ts checks those are the API's), so the summary is
// the organisation and the instant it was taken.
import type { FleetSummaryOf } from '../../../alarms/fleet-digest.js';

export const digestSummary: FleetSummaryOf = async (_db, org, now) => ({ org, takenAt: now.toISOString() });
