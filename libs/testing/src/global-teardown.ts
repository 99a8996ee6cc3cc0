export default async function globalTeardown(): Promise<void> {
  await Promise.all((globalThis.__WRS_CONTAINERS__ ?? []).map((c) => c.stop()));
}
