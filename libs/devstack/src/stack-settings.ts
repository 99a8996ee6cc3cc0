/** What a LocalStack runs and how: the servers it connects to, keys, ports, replicas and images. */
export interface StackSettings {
  /** Root of the compiled tree (the folder holding apps/ and libs/). */
  readonly distDir: string;
  readonly natsUrl: string;
  readonly databaseUrl: string;
  readonly databaseSchema: string;
  readonly redisUrl: string;
  readonly namespace: string;
  readonly publicKeyFile: string;
  /** The provider-credential keys: public KEKs for the api, private for the worker, fingerprint key. */
  readonly credentialKeys?: { publicFile: string; privateFile: string; fingerprintKeyFile: string };
  /** Fixed ports (`npm start`'s PORT, API_PORT, RELAY_PORT); otherwise each process binds port 0 and announces what it got. */
  readonly gatewayPort?: number;
  readonly apiPort?: number;
  readonly relayPort?: number;
  /** How many processes of each kind (1 by default); the gateway spreads requests over them. */
  readonly replicas?: Partial<Record<'api' | 'stream-relay' | 'run-worker', number>>;
  readonly extraEnv?: Record<string, string>;
  /** Node options for every service (the bench passes `--cpu-prof` here; NODE_OPTIONS refuses it). */
  readonly nodeArgs?: readonly string[];
  /**
   * Run each service from its container image (`<repository>/<kind>:<tag>`, as
   * scripts/podman/build-images.sh makes them) with Podman on the host network, instead of as a
   * Node process from distDir.
   */
  readonly images?: { readonly repository: string; readonly tag: string; readonly podmanEnv: Record<string, string> };
  /** Where each process's output goes: a line at a time, prefixed by the process name. */
  readonly onOutput?: (service: string, line: string) => void;
  /** How long a service may take to answer after it starts (30 s by default; a loaded machine needs more). */
  readonly startTimeoutMs?: number;
}
