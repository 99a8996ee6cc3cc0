/**
 * What `work` settles to, if it does within `ms`; else 'still waiting' (a statement stuck behind a lock,
 * a close held open by a connection). The timer is cleared either way, so Jest sees no open handle.
 */
export async function settlesWithin<T>(ms: number, work: Promise<T>): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'still waiting'>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), ms);
  });
  try {
    return await Promise.race([work, waited]);
  } finally {
    clearTimeout(timer);
  }
}
