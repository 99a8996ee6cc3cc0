import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestTls {
  /** The CA that signed the server certificate: what a client must trust (PEM). */
  readonly caCertificate: string;
  readonly serverCertificate: string;
  readonly serverKey: string;
}

/**
 * A throwaway CA and a server certificate for 127.0.0.1 and localhost, made with the openssl CLI the
 * way an operator would, so a client that trusts only this CA (not the system's) is really exercised.
 */
export function makeTestTls(): TestTls {
  const dir = mkdtempSync(join(tmpdir(), 'wrs-fake-k8s-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      at('ca.key'),
      '-out',
      at('ca.crt'),
      '-days',
      '2',
      '-subj',
      '/CN=wrs-test-kubernetes-ca',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    openssl('req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=wrs-test-kubernetes');
    writeFileSync(
      at('server.ext'),
      'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
    );
    openssl(
      'x509',
      '-req',
      '-in',
      at('server.csr'),
      '-CA',
      at('ca.crt'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-out',
      at('server.crt'),
      '-days',
      '2',
      '-extfile',
      at('server.ext'),
    );
    return {
      caCertificate: readFileSync(at('ca.crt'), 'utf8'),
      serverCertificate: readFileSync(at('server.crt'), 'utf8'),
      serverKey: readFileSync(at('server.key'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
