// Consumer groups as the admin sees them: where a group stands (committed offsets against the log's ends),
// how many members it has, and forgetting one.
import type { PartitionLag } from '../transport.js';
import type { KafkaClient } from './client.js';

export async function groupLag(client: KafkaClient, logicalGroup: string, logicalTopic: string): Promise<PartitionLag[]> {
  const a = await client.admin();
  const [topic, groupId] = [client.names.topic(logicalTopic), client.names.group(logicalGroup)];
  const [committed] = await a.fetchOffsets({ groupId, topics: [topic] });
  const ends = await a.fetchTopicOffsets(topic);
  return ends.map(({ partition, high, low }) => {
    const c = committed?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
    // No commit yet: the group starts at the beginning of what the log still holds.
    return { partition, next: c === '-1' ? low : c, end: high };
  });
}

export async function groupMembers(client: KafkaClient, logicalGroup: string): Promise<number> {
  const a = await client.admin();
  const { groups } = await a.describeGroups([client.names.group(logicalGroup)]);
  return groups[0]?.members.length ?? 0;
}

export async function deleteGroup(client: KafkaClient, logicalGroup: string): Promise<void> {
  const a = await client.admin();
  const groupId = client.names.group(logicalGroup);
  // A member that just left may still be on its way out (the group is rebalancing): try for a few seconds.
  for (let attempt = 1; ; attempt++) {
    try {
      await a.deleteGroups([groupId]);
      return;
    } catch (err) {
      const codes = ((err as { groups?: { errorCode?: number; error?: { type?: string } }[] }).groups ?? []).map((g) => g.error?.type);
      if (codes.includes('GROUP_ID_NOT_FOUND')) return;
      if (attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
