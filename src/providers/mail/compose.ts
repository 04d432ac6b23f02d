import type { SendMailOptions } from 'nodemailer';
import { headerText, isMailAddress } from '../../lib/mail-headers.ts';
import { MailDeliveryError, type OutgoingMail } from './mail-transport.ts';

/**
 * Nodemailer's message for an outbox mail, the same for SMTP and `.eml` files. Addresses go as
 * objects and the envelope is explicit, so nothing is parsed out of a string (a name or subject
 * cannot add a recipient); header values are made single lines again here, whoever built them.
 */
export function messageOptions(mail: OutgoingMail): SendMailOptions {
  if (!isMailAddress(mail.to))
    throw new MailDeliveryError(`Not one e-mail address: ${JSON.stringify(mail.to)}`, { permanent: true });
  if (!isMailAddress(mail.from.address))
    throw new MailDeliveryError(`MAIL_FROM is not an e-mail address: ${JSON.stringify(mail.from.address)}`, {
      permanent: false,
    });
  return {
    messageId: messageIdOf(mail),
    from: { name: headerText(mail.from.name ?? '', 100), address: mail.from.address },
    to: { name: '', address: mail.to },
    envelope: { from: mail.from.address, to: [mail.to] },
    subject: headerText(mail.subject),
    text: mail.text,
    ...(mail.html ? { html: mail.html } : {}),
  };
}

/** Transport options both transports set: outbox mail never carries attachments, so no file path or URL is ever read. */
export const NO_CONTENT_ACCESS = { disableFileAccess: true, disableUrlAccess: true } as const;

/** `<outbox id@sender's domain>`: stable across tries, so a receiver can drop a duplicate. */
export function messageIdOf(mail: OutgoingMail): string {
  return `<${mail.id}@${mail.from.address.split('@')[1]}>`;
}
