// SQS client settings, resolved once: shared by the SQS source and the simulator's SQS sink.
//
// - AWS (no endpoint, an AWS host in the queue URL: sqs-endpoint.ts): region and credentials come from the
//   SDK's default chains (AWS_REGION, profiles, instance roles); nothing is invented here. Requests go to the
//   queue URL's origin (a VPC endpoint, FIPS, China), as the SDK's own useQueueUrlAsEndpoint does.
// - ElasticMQ or another local server: the endpoint is the queue URL's origin unless given, the region is
//   `elasticmq` and the credentials are dummies (the server ignores them, the SDK insists on some).
//   Keep the endpoint host identical to the queue URL host (both 127.0.0.1, not one `localhost`): some SDK
//   versions send requests to the queue URL's host, others to the endpoint, and ElasticMQ answers with
//   queue URLs built from its own node-address.
import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { isAwsHost } from './sqs-endpoint.js';
import type { Log } from './source.js';

/** No TCP connection within this: the request fails (both the SDK client and the bridge's request path). */
export const SQS_CONNECT_TIMEOUT_MS = 3_000;

export interface SqsConnectionOptions {
  queueUrl: string;
  /** e.g. http://127.0.0.1:29324 for ElasticMQ. Default: the queue URL's origin when it is not an AWS host. */
  endpoint?: string;
  /** Settings.queue.region (AWS_REGION). Default: `elasticmq` with an endpoint, else the SDK's chain (AWS_REGION, profile). */
  region?: string;
  /** Default: dummies with an endpoint, else the SDK's default chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** A request not answered in full within this fails (and is retried by the caller), so a hung server cannot hang stop(). Default 20 s. */
  requestTimeoutMs?: number;
}

/** Endpoint, region and credentials as the connection options and the server decide them (undefined: the SDK's chains). */
export interface ResolvedSqsConnection {
  endpoint?: string;
  region?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export function resolveSqsConnection({ queueUrl, endpoint, region, credentials }: SqsConnectionOptions, log?: Log): ResolvedSqsConnection {
  const queueHost = new URL(queueUrl);
  const resolvedEndpoint = endpoint ?? (isAwsHost(queueHost.hostname) ? undefined : queueHost.origin);
  if (resolvedEndpoint && new URL(resolvedEndpoint).host !== queueHost.host) {
    log?.('warn', 'SQS endpoint and queue URL name different hosts; use the same host in both', { endpoint: resolvedEndpoint, queueUrl });
  }
  if (resolvedEndpoint) {
    return { endpoint: resolvedEndpoint, region: region ?? 'elasticmq', credentials: credentials ?? { accessKeyId: 'faultline', secretAccessKey: 'faultline' } };
  }
  // Without a region the SDK's own chain finds one (AWS_REGION, profile).
  return { ...(region ? { region } : {}), ...(credentials ? { credentials } : {}) };
}

export function sqsClientConfig(options: SqsConnectionOptions, log?: Log): SQSClientConfig {
  return {
    ...resolveSqsConnection(options, log),
    requestHandler: { connectionTimeout: SQS_CONNECT_TIMEOUT_MS, requestTimeout: options.requestTimeoutMs ?? 20_000, throwOnRequestTimeout: true },
    // No MD5 of every received and sent body (~2.5% of the bridge's CPU): the bodies' integrity on the wire is
    // TLS's (AWS) or the loopback's (ElasticMQ), and a corrupt body would only become a dead letter with its
    // reason (docs/decisions.md#bridge-and-read-performance).
    md5: false,
  };
}

export function createSqsClient(options: SqsConnectionOptions, log?: Log): SQSClient {
  return new SQSClient(sqsClientConfig(options, log));
}
