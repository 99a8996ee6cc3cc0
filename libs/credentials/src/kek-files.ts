import { ConfigError } from '@wrs/config';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PublicKek } from './sealed-secret';

/** `id:file.pem,id2:file2.pem` → entries in order; the first is the one new secrets are sealed with. */
function parseList(variable: string, value: string): { id: string; file: string }[] {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
    .map((entry) => {
      const [id, ...file] = entry.split(':');
      if (!id || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || file.length === 0) {
        throw new ConfigError([`${variable}: each entry must be <key id>:<PEM file>`]);
      }
      return { id, file: file.join(':') };
    });
  if (entries.length === 0) {
    throw new ConfigError([`${variable}: names no key`]);
  }
  return entries;
}

/** The api's side: the public KEKs, current one first. */
export function readPublicKeks(variable: string, value: string): PublicKek[] {
  return parseList(variable, value).map(({ id, file }) => {
    try {
      return { id, publicKey: createPublicKey(readFileSync(file)) };
    } catch (error) {
      throw new ConfigError([`${variable}: cannot read the public key ${id} from ${file} (${(error as Error).message})`]);
    }
  });
}

/** The run-worker's side: every private KEK still needed to open stored secrets. */
export function readPrivateKeks(variable: string, value: string): Map<string, KeyObject> {
  return new Map(
    parseList(variable, value).map(({ id, file }) => {
      try {
        return [id, createPrivateKey(readFileSync(file))] as const;
      } catch (error) {
        throw new ConfigError([`${variable}: cannot read the private key ${id} from ${file} (${(error as Error).message})`]);
      }
    }),
  );
}

/** The development KEK pair and fingerprint key that `npm start` creates on first use. */
export function ensureDevCredentialKeys(directory: string): { publicFile: string; privateFile: string; fingerprintKeyFile: string } {
  const privateFile = join(directory, 'dev-kek.pem');
  const publicFile = join(directory, 'dev-kek.pub.pem');
  const fingerprintKeyFile = join(directory, 'dev-fingerprint.key');
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  if (!existsSync(privateFile) || !existsSync(publicFile)) {
    const { privateKey, publicKey } = generateKeyPairSync('x25519');
    writeFileSync(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }));
  }
  if (!existsSync(fingerprintKeyFile)) {
    writeFileSync(fingerprintKeyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
  }
  return { publicFile, privateFile, fingerprintKeyFile };
}

export function readFingerprintKey(variable: string, file: string): Buffer {
  try {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length < 32) {
      throw new Error('shorter than 32 bytes');
    }
    return key;
  } catch (error) {
    throw new ConfigError([`${variable}: ${file} must hold at least 32 random bytes, base64 (${(error as Error).message})`]);
  }
}
