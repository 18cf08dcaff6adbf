// Where the simulator writes queue messages. One implementation per queue the pipeline reads from.
export interface OutgoingMessage {
  /** Sortable name: the spool file name, the SQS batch entry's correlation. */
  name: string;
  body: string;
}

export interface Sink {
  /** Writes up to 10 messages; resolves when all are accepted (the queue or the directory holds them). */
  write(messages: readonly OutgoingMessage[]): Promise<void>;
  close(): Promise<void>;
}
