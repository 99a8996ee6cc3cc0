import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import type { K8sObject } from './manifest-types';

export const ROOT = join(__dirname, '..', '..', '..', '..');
export const KUBECTL = '/usr/bin/kubectl';
export const OVERLAYS = ['dev', 'prod'] as const;

/** `kubectl kustomize DIR`, parsed (rejects with kubectl's message when it fails). */
export async function renderKustomize(dir: string): Promise<K8sObject[]> {
  const { stdout } = await promisify(execFile)(KUBECTL, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return parseAllDocuments(stdout)
    .map((d) => d.toJSON() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

export function renderOverlay(overlay: (typeof OVERLAYS)[number]): Promise<K8sObject[]> {
  return renderKustomize(join(ROOT, 'deploy/kubernetes/overlays', overlay));
}
