import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiCompare } from 'api-smart-diff';
import { parse } from 'yaml';

/**
 * Contract versions (semantic versioning of `info.version`) and what a change between two contracts
 * may be: the rules behind contract-versions.unit.spec.ts. Test-only (`.testing.ts` is not built).
 */

export type Version = readonly [major: number, minor: number, patch: number];
export type Bump = 'major' | 'minor' | 'patch';

export const CONTRACTS_DIR = join(__dirname, '..');
export const RELEASED_DIR = join(CONTRACTS_DIR, 'released');
export const CHANGELOG_FILE = join(CONTRACTS_DIR, 'CHANGELOG.md');

export function parseVersion(text: string): Version | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

export function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The bump from one version to a later one (undefined when `to` is not later). */
export function bumpBetween(from: Version, to: Version): Bump | undefined {
  if (compareVersions(to, from) <= 0) {
    return undefined;
  }
  return to[0] !== from[0] ? 'major' : to[1] !== from[1] ? 'minor' : 'patch';
}

/**
 * Whether a bump may carry breaking changes. Semver: only a major. Under 0.x (semver item 4: anything
 * may change) the convention, which this project and its client's compatibility rule follow, is that
 * the minor plays the major's part: 0.2 -> 0.3 may break, 0.2.0 -> 0.2.1 may not.
 */
export function bumpAllowsBreaking(from: Version, bump: Bump): boolean {
  return bump === 'major' || (from[0] === 0 && bump === 'minor');
}

export interface Change {
  readonly kind: 'breaking' | 'non-breaking' | 'annotation' | 'unclassified' | 'deprecated';
  readonly where: string;
  readonly description: string;
}

/**
 * Every change from `before` to `after`, classified by api-smart-diff (OpenAPI 3.0 rules: what is
 * removed or narrowed in a response, or added as required or narrowed in a request, breaks clients).
 * `info` is left out: its version is the subject here, not a change of the API.
 */
export function contractChanges(before: unknown, after: unknown): Change[] {
  // Copies: api-smart-diff rewrites the documents it is given (a discriminator was seen to go missing).
  const { diffs } = apiCompare(structuredClone(withoutInfo(before)), structuredClone(withoutInfo(after)));
  return diffs.map((diff) => ({
    kind: isValueAddedToAnswer(diff.action, diff.path) ? 'non-breaking' : (diff.type as Change['kind']),
    where: diff.path.join('/'),
    description: diff.description ?? `${diff.action} ${diff.path.join('/')}`,
  }));
}

/**
 * A value added to an enum of an answer (a failure code), or a kind added to a discriminated union (an
 * event kind). The contract's description tells clients to treat a value they do not know as it says,
 * so this is an addition they tolerate; api-smart-diff, which assumes closed enums, calls the first
 * breaking and cannot classify the second.
 */
function isValueAddedToAnswer(action: string, path: readonly (string | number)[]): boolean {
  if (action !== 'add') {
    return false;
  }
  const parent = path[path.length - 2];
  return (parent === 'enum' && path.includes('responses')) || (parent === 'mapping' && path[path.length - 3] === 'discriminator');
}

/**
 * The changes that need a breaking bump. `unclassified` ones count too: a change the tool cannot judge
 * is not assumed safe. Measured on this contract: api-smart-diff classifies a type change of a response
 * field as breaking where it judges the component schema and non-breaking where it judges the
 * operation that returns it, so a change is taken as breaking if any place classifies it so.
 */
export function isBreaking(change: Change): boolean {
  return change.kind === 'breaking' || change.kind === 'unclassified';
}

export interface ReleasedContract {
  readonly version: Version;
  readonly file: string;
  readonly document: unknown;
}

/** The released contracts (`released/openapi-<version>.yaml`), oldest first. */
export function releasedContracts(dir = RELEASED_DIR): ReleasedContract[] {
  return readdirSync(dir)
    .map((name) => ({ name, version: parseVersion(/^openapi-(.+)\.yaml$/.exec(name)?.[1] ?? '') }))
    .filter((entry): entry is { name: string; version: Version } => entry.version !== undefined)
    .sort((a, b) => compareVersions(a.version, b.version))
    .map(({ name, version }) => ({ version, file: join(dir, name), document: parse(readFileSync(join(dir, name), 'utf8')) as unknown }));
}

/** The versions the changelog has an entry for: its `## <version>` headings. */
export function changelogVersions(markdown: string): string[] {
  return [...markdown.matchAll(/^## \[?(\d+\.\d+\.\d+)\]?/gm)].map((m) => m[1]!);
}

/**
 * What is wrong with going from one contract to the next (none: the step is allowed). Either the same
 * version with no change at all, or a later version with a changelog entry whose bump covers its
 * breaking changes.
 */
export function stepProblems(before: unknown, after: unknown, changelog: readonly string[]): string[] {
  const from = versionOf(before);
  const to = versionOf(after);
  if (!from || !to) {
    return [`info.version must be MAJOR.MINOR.PATCH (have ${infoVersion(before)} -> ${infoVersion(after)})`];
  }
  const name = (v: Version): string => v.join('.');
  const changes = contractChanges(before, after);
  if (compareVersions(from, to) === 0) {
    return changes.length === 0 && sameDocument(before, after)
      ? []
      : [
          `the contract changed but info.version is still ${name(to)}: bump it and add a CHANGELOG entry (${changes.length} changes, e.g. ${changes[0]?.description ?? 'text only'})`,
        ];
  }
  const bump = bumpBetween(from, to);
  if (!bump) {
    return [`info.version went from ${name(from)} to ${name(to)}: it must increase`];
  }
  const problems: string[] = [];
  if (!changelog.includes(name(to))) {
    problems.push(`libs/contracts/CHANGELOG.md has no "## ${name(to)}" entry`);
  }
  const breaking = changes.filter(isBreaking);
  if (breaking.length > 0 && !bumpAllowsBreaking(from, bump)) {
    const needed = from[0] === 0 ? `${from[0]}.${from[1] + 1}.0 (under 0.x a minor bump is the major one)` : `${from[0] + 1}.0.0`;
    problems.push(
      `${name(from)} -> ${name(to)} is a ${bump} bump, but it breaks clients; it needs at least ${needed}:\n` +
        breaking.map((change) => `  ${change.kind}: ${change.description} (${change.where})`).join('\n'),
    );
  }
  return problems;
}

function versionOf(document: unknown): Version | undefined {
  return parseVersion(infoVersion(document));
}

function infoVersion(document: unknown): string {
  return String((document as { info?: { version?: unknown } } | undefined)?.info?.version);
}

function withoutInfo(document: unknown): unknown {
  const { info: _info, ...rest } = document as Record<string, unknown>;
  return rest;
}

/** Equal apart from `info.version`: also catches edits the diff tool files under nothing (descriptions count). */
function sameDocument(a: unknown, b: unknown): boolean {
  return JSON.stringify(withoutVersion(a)) === JSON.stringify(withoutVersion(b));
}

function withoutVersion(document: unknown): unknown {
  const doc = document as { info?: Record<string, unknown> };
  return { ...doc, info: { ...doc.info, version: undefined } };
}
