import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeWalkThrough } from './readme-walk-through';

const README = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');

/** What quick-start.e2e.spec.ts reads of README.md, read here without a stack. */
describe("README.md's curl walk-through, as the quick-start spec reads it", () => {
  const walk = readmeWalkThrough(README);

  it('step 4 is a run that lasts 5 minutes: a tick a second for 300 s in a container, 300 s and 300 lines simulated', () => {
    expect(walk.createBody('img')).toEqual({
      workload: {
        image: 'img',
        args: ['sh', '-c', 'for i in $(seq 1 300); do echo tick $i; sleep 1; done'],
        env: { SIM_DURATION_MS: '300000', SIM_LOG_LINES: '300' },
      },
      provider: 'auto',
      region: 'auto',
    });
  });

  it("the image is the tests' container image; step 5 waits for an echo run", () => {
    expect(walk.image).toBe('localhost/wrs-test/base:bookworm');
    expect(walk.waitPrefer).toBe('wait=30');
    expect(walk.waitBody('img')).toEqual({ workload: { image: 'img', args: ['echo', 'hello'] }, provider: 'auto', region: 'auto' });
  });

  it('step 6 follows for 5 s and resumes after the second event (run.dispatched); step 7 cancels to canceling, then canceled', () => {
    expect({
      followSeconds: walk.followSeconds,
      resumeAfter: walk.resumeAfter,
      containerLines: walk.containerLines,
      simulatedLine: walk.simulatedLine,
      containerName: walk.containerNamePrefix,
      cancel: walk.cancelPath('r1'),
      state: walk.stateAfterCancel,
      lastEvents: walk.lastEvents,
    }).toEqual({
      followSeconds: 5,
      resumeAfter: { index: 1, type: 'run.dispatched' },
      containerLines: ['tick 1', 'tick 2'],
      simulatedLine: 'simulated output line 1 of 300',
      containerName: 'wrs-',
      cancel: '/runs/r1:cancel',
      state: 'canceling',
      lastEvents: ['run.cancel_requested', 'run.canceled'],
    });
  });

  it('a README whose walk-through lost a step is named, not read as something else', () => {
    expect(() => readmeWalkThrough(README.replace(/^\s*-d '\{"workload":\{"image":"'\$IMAGE'","args":\["sh".*$/m, ''))).toThrow(
      "README.md's walk-through no longer has step 4: the create's -d",
    );
  });
});
