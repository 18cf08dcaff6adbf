// Which AWS SQS endpoint a queue URL names, and the region its requests are signed for. Pure rules, no I/O.
//
// The AWS SDK sends each request to the queue URL's origin (its `useQueueUrlAsEndpoint`, on by default), so a
// VPC-endpoint, FIPS or China-region queue URL reaches that host. The bridge's own request path does the same
// (docs/decisions.md#sqs-request-path-hardened). The signing service is `sqs` on every one of these hosts.

/** Regions look like `us-east-1`, `eu-central-2`, `us-gov-west-1`, `cn-north-1`, `ap-southeast-5`. */
const REGION = '[a-z]{2}(?:-[a-z]+)+-\\d+';

/** An AWS host: the public (amazonaws.com), China (amazonaws.com.cn) and dual-stack (api.aws) domains. */
const AWS_HOST = /(^|\.)(amazonaws\.com(\.cn)?|api\.aws)$/;

/**
 * The forms of SQS hosts that name their region:
 * - `sqs.<region>.amazonaws.com`, `sqs-fips.<region>.amazonaws.com`, `sqs.<region>.amazonaws.com.cn`;
 * - a VPC endpoint, `vpce-<id>[-<zone>].sqs.<region>.vpce.amazonaws.com` (the interface endpoint's DNS name);
 * - dual-stack `sqs[-fips].<region>.api.aws`;
 * - the legacy `<region>.queue.amazonaws.com[.cn]`.
 */
const REGIONAL = [
  new RegExp(`(?:^|\\.)sqs(?:-fips)?\\.(${REGION})\\.(?:vpce\\.)?(?:amazonaws\\.com(?:\\.cn)?|api\\.aws)$`),
  new RegExp(`^(${REGION})\\.queue\\.amazonaws\\.com(?:\\.cn)?$`),
];

/** True for a host of AWS itself (not ElasticMQ or another SQS-compatible server). */
export function isAwsHost(hostname: string): boolean {
  return AWS_HOST.test(hostname.toLowerCase());
}

/** The region an AWS queue URL names; undefined for another server or a host that names none. */
export function regionOfQueueUrl(queueUrl: string): string | undefined {
  const host = new URL(queueUrl).hostname.toLowerCase();
  // The oldest form of all, without a region, is us-east-1's.
  if (host === 'queue.amazonaws.com') return 'us-east-1';
  for (const form of REGIONAL) {
    const region = form.exec(host)?.[1];
    if (region) return region;
  }
  return undefined;
}
