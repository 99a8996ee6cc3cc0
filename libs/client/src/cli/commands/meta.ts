import type { WrsClient } from '../../client';
import { PINNED_CONTRACT_VERSION } from '../../generated/contract-version';
import { isCompatibleContract } from '../../version-compatibility';
import { EXIT, type ExitCode } from '../exit-codes';
import type { CliIo } from '../io';
import { versionLines, workspaceLines } from '../render';
import { visible } from '../visible';

/** `wrs version`: what is deployed, and whether this client's pinned contract fits it. */
export async function versionCommand(client: WrsClient, io: CliIo, json: boolean): Promise<ExitCode> {
  const answer = await client.version();
  const compatible = isCompatibleContract(answer.value.contractVersion, PINNED_CONTRACT_VERSION);
  if (json) {
    io.out(
      JSON.stringify({
        kind: 'version',
        server: answer.value,
        pinnedContractVersion: PINNED_CONTRACT_VERSION,
        compatible,
        requestId: answer.requestId,
      }),
    );
  } else {
    versionLines(answer.value, PINNED_CONTRACT_VERSION).forEach((line) => io.out(line));
    io.out(
      compatible
        ? 'compatible'
        : visible(
            `NOT compatible: regenerate or upgrade the client (server ${answer.value.contractVersion}, pinned ${PINNED_CONTRACT_VERSION})`,
          ),
    );
  }
  return compatible ? EXIT.ok : EXIT.apiError;
}

/** `wrs workspace`: the token's workspace and its limits. */
export async function workspaceCommand(client: WrsClient, io: CliIo, json: boolean): Promise<ExitCode> {
  const answer = await client.workspace();
  if (json) {
    io.out(JSON.stringify({ kind: 'workspace', workspace: answer.value, requestId: answer.requestId }));
  } else {
    workspaceLines(answer.value).forEach((line) => io.out(line));
  }
  return EXIT.ok;
}
