/** What a claimed Idempotency-Key remembers: enough to answer a retry without Redis or Postgres. */
export interface IdempotencyClaim {
  readonly runId: string;
  readonly fingerprint: string;
  readonly createdAt: string;
}
