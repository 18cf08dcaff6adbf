// One attempt at one outbox row: build the envelope for the integration's operation and version, POST it,
// read the answer. The password exists in plain text only inside this function, for this request.
import { decryptCredentials } from '../../secrets/credentials.js';
import { SecretsError } from '../../secrets/errors.js';
import type { Keyring } from '../../secrets/keyring.js';
import { buildRequest } from '../build.js';
import { notificationFromPayload } from '../outbox-payload.js';
import { incidentNotification } from '../incident-payload.js';
import { checkAnswer } from './answer.js';
import { DeliveryError } from './errors.js';
import { postSoap, type PostResult } from './http-post.js';
import type { ClaimedRow } from './outbox.js';
import type { Target } from './target.js';

/** Stable per row: every retry of a row carries the same MultiSpeakMsgHeader MessageID. */
export const messageIdOf = (row: Pick<ClaimedRow, 'id' | 'integration_id'>) => `faultline-${row.integration_id}-${row.id}`;

/** Resolves with the OMS's answer when it accepted the notification; throws a DeliveryError otherwise. */
export async function deliverRow(row: ClaimedRow, target: Target, keyring: Keyring | null, now: Date): Promise<PostResult> {
  let notification;
  try {
    notification = row.kind === 'incident'
      ? incidentNotification(messageIdOf(row), row.payload)
      : notificationFromPayload(messageIdOf(row), row.kind, row.payload);
  } catch (err) {
    throw new DeliveryError('BAD_PAYLOAD', (err as Error).message);
  }
  let credentials = null;
  if (target.credentials) {
    if (!keyring) throw new DeliveryError('CREDENTIALS_UNREADABLE', 'no secret key is configured (FAULTLINE_SECRET_KEYS or FAULTLINE_SECRET_KEY_FILE)');
    try {
      credentials = decryptCredentials(keyring, target.id, target.credentials.ciphertext, target.credentials.keyId);
    } catch (err) {
      if (err instanceof SecretsError) throw new DeliveryError('CREDENTIALS_UNREADABLE', `${err.code}: ${err.message}`);
      throw err;
    }
  }
  const { xml, soapAction } = buildRequest(target.version, target.operation, notification, credentials, now, target.company);
  const answer = await postSoap(target.endpoint, xml, soapAction, target);
  checkAnswer(answer);
  return answer;
}
