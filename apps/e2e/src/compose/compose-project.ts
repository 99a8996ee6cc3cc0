import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..', '..');
export const COMPOSE_FILE = join(ROOT, 'docker', 'compose.yaml');

/** What a Compose project left in Podman, found by the label podman-compose puts on each. */
export interface Leftovers {
  readonly containers: string[];
  readonly volumes: string[];
  readonly networks: string[];
}

/**
 * One Compose project driven with podman-compose, as docs/compose.md tells an operator to: up, down
 * with its volumes, then its network (podman-compose 1.0.3's down leaves the network behind).
 */
export class ComposeProject {
  constructor(
    readonly name: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  get label(): string {
    return `label=io.podman.compose.project=${this.name}`;
  }

  /** The container podman-compose names for a service. */
  container(service: string): string {
    return `${this.name}_${service}_1`;
  }

  async up(): Promise<string> {
    return this.compose('up', '-d');
  }

  async down(): Promise<void> {
    await this.compose('down', '-v', '-t', '15');
    for (const network of await this.leftNetworks()) {
      await this.podman('network', 'rm', network);
    }
  }

  async podman(...args: string[]): Promise<string> {
    const { stdout } = await execFileAsync('podman', args, { env: this.env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    return stdout.trim();
  }

  async logs(service: string): Promise<string> {
    const { stdout, stderr } = await execFileAsync('podman', ['logs', '--tail', '40', this.container(service)], {
      env: this.env,
      encoding: 'utf8',
    }).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }));
    return `${stdout}${stderr}`;
  }

  async leftovers(): Promise<Leftovers> {
    const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');
    return {
      containers: lines(await this.podman('ps', '-a', '--filter', this.label, '--format', '{{.Names}}')),
      volumes: lines(await this.podman('volume', 'ls', '--filter', this.label, '--format', '{{.Name}}')),
      networks: await this.leftNetworks(),
    };
  }

  private async leftNetworks(): Promise<string[]> {
    const out = await this.podman('network', 'ls', '--filter', this.label, '--format', '{{.Name}}');
    return out.split('\n').filter((line) => line !== '');
  }

  private async compose(...args: string[]): Promise<string> {
    const { stdout, stderr } = await execFileAsync('podman-compose', ['-p', this.name, '-f', COMPOSE_FILE, ...args], {
      env: this.env,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
      timeout: 300_000,
    });
    return `${stdout}${stderr}`;
  }
}
