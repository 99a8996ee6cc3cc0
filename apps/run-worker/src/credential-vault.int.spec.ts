import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { sealSecret, SecretOpenError } from '@wrs/credentials';
import { migrate, openDatabase, ProviderCredentials } from '@wrs/persistence';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { CredentialVault } from './credential-vault';

describe('CredentialVault: provider keys opened only in the worker, at dispatch', () => {
  const kek = generateKeyPairSync('x25519');
  let env: IsolatedEnvironment;
  let db: DataSource;
  let credentials: ProviderCredentials;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase(env.database);
    credentials = new ProviderCredentials(db);
  });

  afterAll(async () => {
    await db.destroy();
    await env.cleanup();
  });

  async function store(workspaceId: string, region: string | null, secret: string): Promise<string> {
    const id = randomUUID();
    await credentials.add({
      id,
      workspaceId,
      provider: 'kubernetes',
      region,
      fingerprint: `fp-${id}`,
      lastFour: secret.slice(-4),
      sealed: sealSecret(secret, { id: 'k1', publicKey: kek.publicKey }, `${workspaceId}/${id}`),
    });
    return id;
  }

  it("opens the key of the run's workspace, preferring the region's own key", async () => {
    await store('ws-v', null, 'any-region-secret');
    await store('ws-v', 'eu-1', 'eu-secret');
    const vault = new CredentialVault(credentials, new Map([['k1', kek.privateKey]]));
    expect(await vault.open('ws-v', 'kubernetes', 'eu-1')).toBe('eu-secret');
    expect(await vault.open('ws-v', 'kubernetes', 'us-1')).toBe('any-region-secret');
    expect(await vault.open('ws-elsewhere', 'kubernetes', 'eu-1')).toBeNull();
  });

  it('answers each dispatch from the table as it is then, past the fifth lookup (where a generic plan may take over)', async () => {
    const vault = new CredentialVault(credentials, new Map([['k1', kek.privateKey]]));
    for (let i = 0; i < 4; i++) {
      expect(await vault.open('ws-g', 'kubernetes', 'eu-1')).toBeNull();
    }
    await store('ws-g', null, 'g-any-secret');
    for (let i = 0; i < 3; i++) {
      expect(await vault.open('ws-g', 'kubernetes', 'eu-1')).toBe('g-any-secret');
    }
    await store('ws-g', 'eu-1', 'g-eu-secret');
    expect(await vault.open('ws-g', 'kubernetes', 'eu-1')).toBe('g-eu-secret');
    expect(await vault.open('ws-g', 'kubernetes', 'us-1')).toBe('g-any-secret');
    expect(await vault.open('ws-g', 'container', 'eu-1')).toBeNull();
  });

  it('cannot open a record copied into another workspace, nor without the private KEK', async () => {
    const id = await store('ws-a', 'r1', 'a-secret');
    await db.query(`UPDATE provider_credentials SET workspace_id = 'ws-b' WHERE id = $1`, [id]);
    const vault = new CredentialVault(credentials, new Map([['k1', kek.privateKey]]));
    await expect(vault.open('ws-b', 'kubernetes', 'r1')).rejects.toBeInstanceOf(SecretOpenError);
    await store('ws-c', 'r1', 'c-secret');
    await expect(new CredentialVault(credentials, new Map()).open('ws-c', 'kubernetes', 'r1')).rejects.toBeInstanceOf(SecretOpenError);
  });
});
