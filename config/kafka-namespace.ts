// KAFKA_NAMESPACE's rule (stages/runtime/transport/names.ts applies the namespace to every Kafka name).

/** Kafka's legal topic characters; the dot that joins it to the name is added here. */
const NAMESPACE = /^[A-Za-z0-9_-]{1,100}$/;

export function checkNamespace(namespace: string): string | null {
  if (namespace === '') return null;
  return NAMESPACE.test(namespace) ? null : 'must be 1 to 100 letters, digits, "_" or "-" (it prefixes Kafka topic names)';
}
