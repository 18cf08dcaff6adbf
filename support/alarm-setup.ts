// Alarm recipients and rules for the alarm suites, imported the way an operator does (`faultline import`'s
// importer), pointed at the suite's own SMTP server and HTTP peers.
import type pg from 'pg';
import { importReferenceData } from '../reference-data/index.js';
import { testKeyring } from './reference-data.js';

export const WEBHOOK_SECRET = 'whsec-test-0123456789abcdef';
export const TEST_KEYS = `test:${Buffer.alloc(32, 7).toString('base64')}`;

export interface AlarmSetup {
  recipients?: Record<string, unknown>[];
  rules?: Record<string, unknown>[];
}

export async function importAlarms(pool: pg.Pool, { recipients = [], rules = [] }: AlarmSetup): Promise<void> {
  await importReferenceData(pool, { alarmRecipients: recipients, alarmRules: rules }, { keyring: testKeyring(), webhookAllow: ['loopback'] });
}

/** A desk per organisation (north and south) hearing `kinds`: the suites of devices moved between the two. */
export function deskPerOrganisation(kinds: string[]): AlarmSetup {
  return {
    recipients: ['north', 'south'].map((org) => ({ id: `${org[0]}-desk`, OrganizationID: org, channel: 'email', address: `desk@${org}.example` })),
    rules: ['north', 'south'].map((org) => ({ id: `${org[0]}-faults`, OrganizationID: org, class: 'operations', what: kinds, who: [`${org[0]}-desk`] })),
  };
}

/** One recipient per channel and a rule sending every kind of the north organisation to all three. */
export function everyChannel(webhookUrl: string): AlarmSetup {
  return {
    recipients: [
      { id: 'north-mail', OrganizationID: 'north', name: 'Ops desk', channel: 'email', address: 'ops@north.example' },
      { id: 'north-sms', OrganizationID: 'north', name: 'On call', channel: 'sms', address: '+15550100' },
      { id: 'north-hook', OrganizationID: 'north', name: 'Data platform', channel: 'webhook', address: `${webhookUrl}/hook`, secret: WEBHOOK_SECRET },
    ],
    rules: [{ id: 'north-all', OrganizationID: 'north', class: 'operations', what: ['permanent', 'temporary'], who: ['north-mail', 'north-sms', 'north-hook'] }],
  };
}
