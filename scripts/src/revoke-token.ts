import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { CommonEnv, ConfigError, loadConfig, runService } from '@wrs/config';
import { connectNats, ensureStreams, streamSettingsOf, StreamNames, TokenRevocations } from '@wrs/messaging';

const USAGE = 'usage: npm run revoke-token -- --jti <token id>   |   npm run revoke-token -- --token-stdin < token-file';

/**
 * The admin command that revokes an access token by its id (`jti`), everywhere within milliseconds.
 * With --token-stdin it reads the token from standard input (never from an argument, which would land
 * in the shell history) and revokes its id; the token's signature is not needed for that.
 */
void runService('revoke-token', async () => {
  const { values } = parseArgs({ options: { jti: { type: 'string' }, 'token-stdin': { type: 'boolean' } } });
  const tokenId = values.jti ?? (values['token-stdin'] ? tokenIdOf(await readStdin()) : undefined);
  if (!tokenId) {
    throw new ConfigError([USAGE]);
  }
  const config = loadConfig(CommonEnv, process.env);
  const nc = await connectNats(config.NATS_URL, 'revoke-token');
  const names = new StreamNames(config.NAMESPACE);
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, names, streamSettingsOf(config));
  await new TokenRevocations(jetstream(nc), jsm, names).revoke(tokenId);
  await nc.close();
  console.log(`revoked token ${tokenId}`);
  process.exit(0);
});

function tokenIdOf(token: string): string | undefined {
  try {
    const claims = JSON.parse(Buffer.from(token.trim().split('.')[1] ?? '', 'base64url').toString('utf8')) as { jti?: unknown };
    return typeof claims.jti === 'string' ? claims.jti : undefined;
  } catch {
    return undefined;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
