import {
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

/**
 * A provider key at rest: encrypted with AES-256-GCM under a fresh data key, and the data key wrapped
 * (AES-256-GCM again) under a key derived by X25519 from an ephemeral key and the key-encryption key's
 * public half. The api, which stores secrets, holds only public KEKs: only the run-worker, which holds
 * the private KEKs, can open a secret, at dispatch. `kekId` names the KEK so keys can rotate.
 */
export interface SealedSecret {
  readonly v: 1;
  readonly kekId: string;
  readonly ephemeralPublicKey: string;
  readonly wrappedKey: string;
  readonly wrapIv: string;
  readonly wrapTag: string;
  readonly iv: string;
  readonly tag: string;
  readonly ciphertext: string;
}

export interface PublicKek {
  readonly id: string;
  readonly publicKey: KeyObject;
}

export class SecretOpenError extends Error {
  constructor(reason: string) {
    super(`cannot open the sealed secret: ${reason}`);
    this.name = 'SecretOpenError';
  }
}

const WRAP_INFO = Buffer.from('workload-run-service/credential-wrap/v1');

export function sealSecret(secret: string, kek: PublicKek, associatedData: string): SealedSecret {
  const dataKey = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  const ephemeral = generateKeyPairSync('x25519');
  const wrappingKey = deriveWrappingKey(diffieHellman({ privateKey: ephemeral.privateKey, publicKey: kek.publicKey }));
  const wrapIv = randomBytes(12);
  const wrap = createCipheriv('aes-256-gcm', wrappingKey, wrapIv);
  wrap.setAAD(Buffer.from(kek.id));
  const wrappedKey = Buffer.concat([wrap.update(dataKey), wrap.final()]);
  dataKey.fill(0);
  return {
    v: 1,
    kekId: kek.id,
    ephemeralPublicKey: ephemeral.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    wrappedKey: wrappedKey.toString('base64'),
    wrapIv: wrapIv.toString('base64'),
    wrapTag: wrap.getAuthTag().toString('base64'),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

/** Opens a sealed secret with the private KEK it names; the associated data must match the sealing. */
export function openSecret(sealed: SealedSecret, privateKeks: ReadonlyMap<string, KeyObject>, associatedData: string): string {
  const privateKey = privateKeks.get(sealed.kekId);
  if (!privateKey) {
    throw new SecretOpenError(`no private key for KEK ${sealed.kekId}`);
  }
  try {
    const ephemeral = createPublicKey({ key: Buffer.from(sealed.ephemeralPublicKey, 'base64'), format: 'der', type: 'spki' });
    const wrappingKey = deriveWrappingKey(diffieHellman({ privateKey, publicKey: ephemeral }));
    const unwrap = createDecipheriv('aes-256-gcm', wrappingKey, Buffer.from(sealed.wrapIv, 'base64'));
    unwrap.setAAD(Buffer.from(sealed.kekId));
    unwrap.setAuthTag(Buffer.from(sealed.wrapTag, 'base64'));
    const dataKey = Buffer.concat([unwrap.update(Buffer.from(sealed.wrappedKey, 'base64')), unwrap.final()]);
    const decipher = createDecipheriv('aes-256-gcm', dataKey, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const secret = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
    dataKey.fill(0);
    return secret;
  } catch {
    throw new SecretOpenError('authentication failed (wrong key, or the record was altered)');
  }
}

function deriveWrappingKey(sharedSecret: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', sharedSecret, Buffer.alloc(0), WRAP_INFO, 32));
}
