import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import nodemailer from 'nodemailer';
import type { Logger } from '../../lib/logger.ts';
import { messageOptions, NO_CONTENT_ACCESS } from './compose.ts';
import { MailDeliveryError, type MailTransport, type OutgoingMail, type SentMail } from './mail-transport.ts';

/**
 * The default without `SMTP_URL`, useful on one machine: each mail becomes `<id>.eml` in
 * `directory` (`DATA_DIR/mail/`), openable by any mail client, and its link is logged at `info`.
 * The same composer as SMTP writes it, so the file is byte for byte what a relay would get.
 */
export class EmlFileTransport implements MailTransport {
  readonly kind = 'file';
  readonly #directory: string;
  readonly #logger: Logger;
  readonly #composer = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'windows',
    ...NO_CONTENT_ACCESS,
  });

  constructor(deps: { directory: string; logger: Logger }) {
    this.#directory = deps.directory;
    this.#logger = deps.logger;
  }

  async send(mail: OutgoingMail): Promise<SentMail> {
    const info = await this.#composer.sendMail(messageOptions(mail));
    const file = path.join(this.#directory, `${mail.id}.eml`);
    try {
      await fs.mkdir(this.#directory, { recursive: true });
      // Written aside and renamed, so a reader never opens half a message.
      const partial = `${file}.${process.pid}.partial`;
      await fs.writeFile(partial, info.message as Buffer, { mode: 0o600 });
      await fs.rename(partial, file);
    } catch (error) {
      throw new MailDeliveryError(`Could not write ${file}: ${(error as Error).message}`, {
        permanent: false,
        cause: error,
      });
    }
    const link = pathToFileURL(file).href;
    this.#logger.info(
      { mailId: mail.id, to: mail.to, subject: mail.subject, file: link },
      'mail written to a file (SMTP_URL is not set)',
    );
    return { messageId: info.messageId, response: `written to ${link}`, file: link };
  }

  describe(): Record<string, unknown> {
    return {
      configured: false,
      transport: 'file',
      note: 'SMTP_URL is not set: mail is written as .eml files under DATA_DIR/mail/, not sent',
    };
  }

  async close(): Promise<void> {}
}
