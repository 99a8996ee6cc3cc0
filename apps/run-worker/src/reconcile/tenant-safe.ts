/**
 * A provider's or engine's message as a workspace may read it (in a failure, a failover or a wait):
 * the operator's engine socket paths are none of a tenant's business, so they become `<engine socket>`.
 */
export function tenantSafe(message: string): string {
  return message.replace(/unix:\/\/\S+?(?=[\s)"',;]|$)|\/[\w./-]*\.sock\b/g, '<engine socket>');
}
