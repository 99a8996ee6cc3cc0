/**
 * An event id as the contract defines it (a sequence number, `^[0-9]{1,16}$`) and the server takes it
 * (no more than 2^53 - 1): what `--after` accepts and what a printed resume command may carry.
 */
export function isEventId(text: string): boolean {
  return /^[0-9]{1,16}$/.test(text) && Number.isSafeInteger(Number(text));
}
