import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/config.ts';
import type { Logger } from '../../lib/logger.ts';
import { EmlFileTransport } from './eml-file-transport.ts';
import type { MailTransport } from './mail-transport.ts';
import { SmtpTransport } from './smtp-transport.ts';

/** The transport the configuration names: the SMTP relay of `SMTP_URL`, else `.eml` files under `DATA_DIR/mail/`. */
export function createMailTransport(
  config: Pick<Config, 'mail' | 'outbound' | 'dataDir'>,
  logger: Logger,
): MailTransport {
  if (!config.mail.smtpUrl) return new EmlFileTransport({ directory: path.join(config.dataDir, 'mail'), logger });
  // The same extra trust as every other outbound call (OUTBOUND_EXTRA_CA_FILE): a relay with a private CA works.
  const extraCa = config.outbound.extraCaFile ? [fs.readFileSync(config.outbound.extraCaFile, 'utf8')] : undefined;
  return new SmtpTransport({ url: config.mail.smtpUrl, extraCa, maxConnections: config.mail.smtpMaxConnections });
}
