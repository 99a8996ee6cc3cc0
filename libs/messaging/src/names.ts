/**
 * Stream names and subjects, all under one namespace so that several stacks (and test runs) share a
 * NATS server without seeing each other. Ids placed in subjects are validated to be subject-safe
 * before they get here (workspace ids by the token check, run ids as UUIDs).
 */
export class StreamNames {
  readonly eventsStream: string;
  readonly commandsStream: string;
  readonly revocationsStream: string;

  constructor(readonly namespace: string) {
    this.eventsStream = `${namespace.toUpperCase()}_RUN_EVENTS`;
    this.commandsStream = `${namespace.toUpperCase()}_RUN_COMMANDS`;
    this.revocationsStream = `${namespace.toUpperCase()}_TOKEN_REVOCATIONS`;
  }

  /** A revoked token id (hashed: ids may hold characters a subject cannot). */
  revokedToken(tokenIdHash: string): string {
    return `${this.namespace}.revoked.${tokenIdHash}`;
  }

  allRevokedTokens(): string {
    return `${this.namespace}.revoked.>`;
  }

  /** Every event of one run, in order: the run's event stream and its optimistic-concurrency unit. */
  runEvents(workspaceId: string, runId: string): string {
    return `${this.namespace}.evt.${workspaceId}.${runId}`;
  }

  allRunEvents(): string {
    return `${this.namespace}.evt.>`;
  }

  /** Where an api of the previous version published cancels (the worker drains them for one release). */
  cancelCommand(workspaceId: string, runId: string): string {
    return `${this.namespace}.cmd.cancel.${workspaceId}.${runId}`;
  }

  /** Claims one (workspace, Idempotency-Key) pair; the key is hashed so any printable key fits. */
  idempotencyClaim(workspaceId: string, keyHash: string): string {
    return `${this.namespace}.idem.${workspaceId}.${keyHash}`;
  }

  /** Commands of the previous version's apis (cancels): kept on the command stream for one release. */
  allCommands(): string {
    return `${this.namespace}.cmd.>`;
  }

  commandSubjects(): string[] {
    return [`${this.namespace}.cmd.>`, `${this.namespace}.idem.>`];
  }

  workerCommandsConsumer(): string {
    return `${this.namespace}_run_worker_commands`;
  }

  projectionConsumer(): string {
    return `${this.namespace}_run_worker_projection`;
  }
}

/** Parses `<ns>.evt.<workspace>.<run>` back into its ids. */
export function parseRunEventsSubject(subject: string): { workspaceId: string; runId: string } | null {
  const parts = subject.split('.');
  if (parts.length !== 4 || parts[1] !== 'evt') {
    return null;
  }
  return parseRunSubject(subject);
}

/**
 * The workspace and run a run's subject names: events (`<ns>.evt.<workspace>.<run>`) and commands
 * (`<ns>.cmd.<verb>.<workspace>.<run>`) both end with them. The one parser of subjects.
 */
export function parseRunSubject(subject: string): { workspaceId: string; runId: string } | null {
  const parts = subject.split('.');
  const runId = parts[parts.length - 1];
  const workspaceId = parts[parts.length - 2];
  if (parts.length < 4 || !runId || !workspaceId || (parts[1] !== 'evt' && parts[1] !== 'cmd')) {
    return null;
  }
  return { workspaceId, runId };
}
