import fs from 'node:fs';
import type { Config } from '../../config/config.ts';
import { createOutboundHttp, type OutboundHttp, type OutboundHttpOptions } from './outbound-http.ts';

/**
 * The guarded client as configured: every module that calls servers a tenant names (webhooks,
 * workflow `http_request` nodes, MCP servers, customer storage, import sources) builds its client
 * here, so ALLOW_PRIVATE_NETWORK_TARGETS and OUTBOUND_EXTRA_CA_FILE (certificates trusted on top
 * of Node's store, NODE_EXTRA_CA_CERTS included) apply to all of them alike.
 */
export function outboundHttpFromConfig(
  config: Config,
  options: Pick<OutboundHttpOptions, 'connectionsPerOrigin'> = {},
): OutboundHttp {
  const extraCaFile = config.outbound.extraCaFile;
  return createOutboundHttp({
    allowPrivateNetwork: config.allowPrivateNetworkTargets,
    ...(extraCaFile ? { extraCa: [fs.readFileSync(extraCaFile, 'utf8')] } : {}),
    ...options,
  });
}
