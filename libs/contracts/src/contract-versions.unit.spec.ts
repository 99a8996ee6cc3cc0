import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CONTRACT_FILE } from './index';
import {
  CHANGELOG_FILE,
  bumpAllowsBreaking,
  changelogVersions,
  contractChanges,
  isBreaking,
  parseVersion,
  releasedContracts,
  stepProblems,
  type Version,
} from './contract-versions.testing';

type Doc = { info: { version: string }; paths: Record<string, any>; components: { schemas: Record<string, any> } };

const released = releasedContracts();
const changelog = changelogVersions(readFileSync(CHANGELOG_FILE, 'utf8'));

describe('the contract is versioned: every change bumps info.version, with a CHANGELOG entry', () => {
  it('keeps the released contracts, each with a changelog entry', () => {
    expect(released.map((r) => r.version.join('.'))).toContain('0.2.0');
    for (const r of released) {
      expect({ version: r.version.join('.'), inChangelog: changelog.includes(r.version.join('.')) }).toEqual({
        version: r.version.join('.'),
        inChangelog: true,
      });
    }
  });

  it('each released version follows the one before it by the rules', () => {
    for (let i = 1; i < released.length; i++) {
      expect(stepProblems(released[i - 1]!.document, released[i]!.document, changelog)).toEqual([]);
    }
  });

  it('the contract as it is now: the last release unchanged, or a later version that fits its changes', () => {
    const current = parse(readFileSync(CONTRACT_FILE, 'utf8')) as unknown;
    const problems = stepProblems(released[released.length - 1]!.document, current, changelog);
    if (problems.length > 0) {
      throw new Error(problems.join('\n'));
    }
  });
});

describe('the rules, on changes made to the 0.2.0 contract', () => {
  const base = released.find((r) => r.version.join('.') === '0.2.0')!.document as Doc;
  const changed = (version: string, edit: (doc: Doc) => void = () => undefined): Doc => {
    const doc = structuredClone(base);
    doc.info.version = version;
    edit(doc);
    return doc;
  };
  const breaks = (edit: (doc: Doc) => void): boolean => contractChanges(base, changed('0.2.0', edit)).some(isBreaking);
  const schemas = (doc: Doc): Record<string, any> => doc.components.schemas;

  it('classifies what breaks a client as breaking', () => {
    expect(breaks((d) => delete d.paths['/version'])).toBe(true);
    expect(breaks((d) => delete d.paths['/runs'].get)).toBe(true);
    expect(breaks((d) => delete d.paths['/runs/{runId}'].get.responses['404'])).toBe(true);
    expect(
      breaks((d) => {
        delete schemas(d)['Run'].properties.logLines;
        schemas(d)['Run'].required = schemas(d)['Run'].required.filter((f: string) => f !== 'logLines');
      }),
    ).toBe(true);
    expect(breaks((d) => schemas(d)['Workload'].required.push('command'))).toBe(true);
    expect(breaks((d) => (schemas(d)['Run'].properties.exitCode = { type: 'string', nullable: true }))).toBe(true);
    expect(breaks((d) => schemas(d)['RunState'].enum.pop())).toBe(true); // also a request parameter's values
    expect(breaks((d) => schemas(d)['Failure'].properties.code.enum.pop())).toBe(true); // a value an answer no longer has
  });

  it('classifies what a client tolerates as not breaking', () => {
    expect(breaks(() => undefined)).toBe(false);
    expect(breaks((d) => (schemas(d)['Run'].properties.note = { type: 'string' }))).toBe(false);
    expect(breaks((d) => schemas(d)['RunEventType'].enum.push('run.paused'))).toBe(false); // clients tolerate unknown kinds
    expect(breaks((d) => schemas(d)['Failure'].properties.code.enum.push('disk_full'))).toBe(false); // and unknown codes
    expect(
      breaks((d) => {
        schemas(d)['RunPausedEvent'] = { type: 'object', properties: { type: { type: 'string', enum: ['run.paused'] } } };
        schemas(d)['RunEvent'].oneOf.push({ $ref: '#/components/schemas/RunPausedEvent' });
        schemas(d)['RunEvent'].discriminator.mapping['run.paused'] = '#/components/schemas/RunPausedEvent';
      }),
    ).toBe(false); // an event kind with its own schema
    expect(breaks((d) => (d.paths['/runs/{runId}'].get.responses['410'] = { $ref: '#/components/responses/NotFound' }))).toBe(false);
    expect(breaks((d) => (d.paths['/runs/{runId}'].get.summary = 'Another summary.'))).toBe(false);
  });

  it('a change needs a bump, and a changelog entry for the new version', () => {
    const note = (d: Doc): void => void (schemas(d)['Run'].properties.note = { type: 'string' });
    expect(stepProblems(base, changed('0.2.0'), changelog)).toEqual([]);
    expect(stepProblems(base, changed('0.2.0', note), changelog).join()).toMatch(/still 0\.2\.0/);
    expect(
      stepProblems(
        base,
        changed('0.2.0', (d) => (d.paths['/version'].get.summary = 'x')),
        changelog,
      ).join(),
    ).toMatch(/still 0\.2\.0/);
    expect(stepProblems(base, changed('0.2.1', note), ['0.2.1'])).toEqual([]);
    expect(stepProblems(base, changed('0.2.1', note), []).join()).toMatch(/no "## 0\.2\.1" entry/);
    expect(stepProblems(base, changed('0.1.9', note), ['0.1.9']).join()).toMatch(/must increase/);
  });

  it('a breaking change needs a major bump; under 0.x a minor one', () => {
    const breaking = (d: Doc): void => void delete d.paths['/version'];
    expect(stepProblems(base, changed('0.2.1', breaking), ['0.2.1']).join()).toMatch(/needs at least 0\.3\.0/);
    expect(stepProblems(base, changed('0.3.0', breaking), ['0.3.0'])).toEqual([]);
    expect(stepProblems(base, changed('1.0.0', breaking), ['1.0.0'])).toEqual([]);
    const v1 = changed('1.4.2');
    expect(stepProblems(v1, { ...changed('1.5.0', breaking) }, ['1.5.0']).join()).toMatch(/needs at least 2\.0\.0/);
    expect(stepProblems(v1, changed('2.0.0', breaking), ['2.0.0'])).toEqual([]);
  });

  it('knows which bumps may break', () => {
    const v = (text: string): Version => parseVersion(text)!;
    expect(bumpAllowsBreaking(v('0.2.0'), 'minor')).toBe(true);
    expect(bumpAllowsBreaking(v('0.2.0'), 'patch')).toBe(false);
    expect(bumpAllowsBreaking(v('1.2.0'), 'minor')).toBe(false);
    expect(bumpAllowsBreaking(v('1.2.0'), 'major')).toBe(true);
    expect(parseVersion('1.2')).toBeUndefined();
  });
});
