import { randomBytes } from 'node:crypto';
import type { RunView } from '@wrs/domain';
import {
  buildBusyboxImage,
  CONTAINER_SOCKET,
  containerEngineMissing,
  describeNeeding,
  loopbackRegistryMissing,
  patience,
  pushToRegistry,
  removeLocalImage,
  startLoopbackRegistry,
  startSilentRegistry,
  type LoopbackRegistry,
} from '@wrs/testing';
import { ContainerProvider } from './container.provider';
import { containerRunOf, exitCodeOf } from './container-runs.testing';
import { containerEngine } from './container/engine';
import { DEFAULT_PULL, type PullSettings } from './container/image-pull';

const engine = containerEngine(CONTAINER_SOCKET);
const placement = { provider: 'container', region: 'local', reason: 'test', candidates: [] };

const providerWith = (pull: Partial<PullSettings> = {}) =>
  new ContainerProvider(engine, 'container', 'wrs-pull-test', { ...DEFAULT_PULL, ...pull });

async function engineHas(image: string): Promise<boolean> {
  return engine
    .getImage(image)
    .inspect()
    .then(
      () => true,
      (e: { statusCode?: number }) => (e.statusCode === 404 ? false : Promise.reject(e)),
    );
}

/**
 * Pulls for real: Debian's docker-registry on loopback holds a busybox image pushed with skopeo from
 * Podman's store, and the engine (Podman here) has neither its name nor its layers when a run asks for it.
 */
describeNeeding(containerEngineMissing() ?? loopbackRegistryMissing())('ContainerProvider pulling images from a real registry', () => {
  const suffix = randomBytes(4).toString('hex');
  const local = `localhost/wrs-test/pull-${suffix}:1`;
  const repoTag = `wrs/pull-${suffix}:1`;
  let registry: LoopbackRegistry;
  let image: string;
  const runs: RunView[] = [];

  beforeAll(async () => {
    registry = await startLoopbackRegistry();
    image = `${registry.host}/${repoTag}`;
    buildBusyboxImage(local);
    pushToRegistry(local, registry.host, repoTag);
    removeLocalImage(local);
  });
  afterAll(async () => {
    await Promise.all(runs.map((run) => providerWith().release(run)));
    removeLocalImage(image);
    await registry?.stop();
  });

  it('pulls a missing image by its registry name and runs it; a second submit of the run starts no second container', async () => {
    expect(await engineHas(image)).toBe(false);
    const provider = providerWith();
    const run = containerRunOf(image, 'echo pulled-and-ran');
    runs.push(run);
    // Two workers handed the same run at once: both pull, one creates, both start: one container.
    await Promise.all([provider.submit(run, placement), provider.submit(run, placement)]);
    expect(await exitCodeOf(provider, run)).toBe(0);
    const lines = (await provider.logs(run, 0)).map((l) => l.line);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^\\[wrs\\] pulled ${image.replace(/[.]/g, '\\.')} in \\d+\\.\\d s$`)),
      'pulled-and-ran',
    ]);
    const held = await provider.listHeld();
    expect(held.filter((h) => h.runId === run.runId)).toHaveLength(1);
  });

  it('IfNotPresent does not pull an image the engine has; Always pulls it again', async () => {
    const present = containerRunOf(image, 'echo again');
    const always = containerRunOf(image, 'echo always');
    runs.push(present, always);
    expect(await engineHas(image)).toBe(true);
    await providerWith().submit(present, placement);
    await providerWith({ policy: 'Always' }).submit(always, placement);
    expect(await exitCodeOf(providerWith(), present)).toBe(0);
    expect(await exitCodeOf(providerWith(), always)).toBe(0);
    expect((await providerWith().logs(present, 0)).map((l) => l.line)).toEqual(['again']);
    expect((await providerWith().logs(always, 0)).map((l) => l.line)).toEqual([expect.stringMatching(/^\[wrs\] pulled /), 'always']);
  });

  it('a name the registry does not have is image_not_found, and no container is made', async () => {
    const run = containerRunOf(`${registry.host}/wrs/nope-${suffix}:1`, 'true');
    runs.push(run);
    await expect(providerWith().submit(run, placement)).rejects.toMatchObject({
      name: 'ProviderError',
      code: 'image_not_found',
      message: expect.stringMatching(/manifest unknown/),
    });
    expect(await providerWith().observe(run)).toMatchObject({ phase: 'lost' });
  });

  it('Never with an image the engine lacks is image_not_found without a pull (the registry has it)', async () => {
    const other = `${registry.host}/wrs/never-${suffix}:1`;
    buildBusyboxImage(local);
    pushToRegistry(local, registry.host, `wrs/never-${suffix}:1`);
    removeLocalImage(local);
    const run = containerRunOf(other, 'true');
    runs.push(run);
    await expect(providerWith({ policy: 'Never' }).submit(run, placement)).rejects.toMatchObject({
      code: 'image_not_found',
      message: expect.stringMatching(/pull policy is Never/),
    });
    // Pulled, the engine would have it now.
    expect(await engineHas(other)).toBe(false);
  });

  it('a registry that asks for credentials the provider does not have is registry_auth_failed', async () => {
    const guarded = await startLoopbackRegistry({ auth: true });
    try {
      const run = containerRunOf(`${guarded.host}/wrs/anything:1`, 'true');
      runs.push(run);
      await expect(providerWith().submit(run, placement)).rejects.toMatchObject({
        code: 'registry_auth_failed',
        message: expect.stringMatching(/unauthorized/),
      });
    } finally {
      await guarded.stop();
    }
  });

  it('a pull that does not finish within pullTimeoutSeconds is abandoned as image_pull_timed_out', async () => {
    const silent = await startSilentRegistry();
    try {
      const run = containerRunOf(`${silent.host}/wrs/hangs:1`, 'true');
      runs.push(run);
      const started = Date.now();
      await expect(providerWith({ timeoutMs: 2_000 }).submit(run, placement)).rejects.toMatchObject({ code: 'image_pull_timed_out' });
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(2_000);
      expect(took).toBeLessThan(patience(8_000));
    } finally {
      await silent.stop();
    }
  });
});
