// Key -> partition for the in-process transport. FNV-1a: cheap, well spread for IMEI strings, stable across
// runs. (On Kafka, kafkajs's default murmur2 partitioner decides; the two never need to agree.)
export function partitionFor(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}
