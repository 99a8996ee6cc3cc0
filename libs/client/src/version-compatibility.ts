/**
 * A server fits a pinned contract when it has the same major version and is not older, since changes within
 * a major only add. Under 0.x the minor counts as the major (0.2 -> 0.3 may break), so it must match too.
 */
export function isCompatibleContract(serverVersion: string, pinnedVersion: string): boolean {
  const server = parse(serverVersion);
  const pinned = parse(pinnedVersion);
  if (!server || !pinned || server[0] !== pinned[0] || (server[0] === 0 && server[1] !== pinned[1])) {
    return false;
  }
  for (let i = 1; i < 3; i++) {
    if (server[i]! !== pinned[i]!) {
      return server[i]! > pinned[i]!;
    }
  }
  return true;
}

function parse(version: string): [number, number, number] | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}
