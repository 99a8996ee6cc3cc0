import type { Immutable, VersionInfo } from '@wrs/contracts/types';

/** What `GET /version` answers, a literal of the contract's type. */
export function toVersionInfo(
  contractVersion: string,
  build: { readonly version: string; readonly commit: string | null },
): Immutable<VersionInfo> {
  return { api: 'v1', contractVersion, build: { version: build.version, commit: build.commit } };
}
