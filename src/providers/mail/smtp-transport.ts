import nodemailer, { type NodemailerError, type SMTPPoolOptions } from 'nodemailer';
import { trustedCa } from '../outbound/guarded-connect.ts';
import { messageOptions, NO_CONTENT_ACCESS } from './compose.ts';
import { MailDeliveryError, type MailTransport, type OutgoingMail, type SentMail } from './mail-transport.ts';

/** Settings of the SMTP relay, from `SMTP_URL` and the outbound trust settings. */
export interface SmtpSettings {
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://...:465` (TLS from the start). */
  url: string;
  /** Extra PEM certificates to trust besides Node's store (OUTBOUND_EXTRA_CA_FILE). */
  extraCa?: readonly string[] | undefined;
  /** Connections kept open to the relay. */
  maxConnections?: number;
}

/** Nodemailer's options for an `smtp:`/`smtps:` URL: pooled, with timeouts, never logging. */
export function smtpOptions(settings: SmtpSettings): SMTPPoolOptions {
  const url = new URL(settings.url);
  const secure = url.protocol === 'smtps:';
  const flag = (name: string) => url.searchParams.get(name) === 'true';
  const ca = trustedCa(settings.extraCa);
  return {
    pool: true,
    maxConnections: settings.maxConnections ?? 5,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    // `?requireTLS=true`: never send (nor authenticate) over a connection STARTTLS did not protect.
    requireTLS: flag('requireTLS'),
    ...(url.username
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    ...(url.searchParams.get('name') ? { name: url.searchParams.get('name')! } : {}),
    ...(ca ? { tls: { ca } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    logger: false,
    ...NO_CONTENT_ACCESS,
  };
}

/** Sends through an SMTP relay with pooled connections (Nodemailer). */
export class SmtpTransport implements MailTransport {
  readonly kind = 'smtp';
  readonly #transporter;
  readonly #secure: boolean;

  constructor(settings: SmtpSettings) {
    const options = smtpOptions(settings);
    this.#transporter = nodemailer.createTransport(options);
    this.#secure = options.secure === true;
  }

  async send(mail: OutgoingMail): Promise<SentMail> {
    try {
      const info = await this.#transporter.sendMail(messageOptions(mail));
      return { messageId: info.messageId, response: info.response };
    } catch (error) {
      throw deliveryError(error);
    }
  }

  // `/health` is public: it says how mail leaves, not where to (no relay host, never credentials).
  describe(): Record<string, unknown> {
    return { configured: true, transport: 'smtp', tls: this.#secure ? 'tls' : 'starttls' };
  }

  async close(): Promise<void> {
    this.#transporter.close();
  }
}

/**
 * Permanent only when the server refused this message or its recipient (5xx, 503 aside, to RCPT TO
 * or DATA): refused credentials or an unreachable server are the relay's trouble, worth retrying.
 */
export function deliveryError(error: unknown): MailDeliveryError {
  if (error instanceof MailDeliveryError) return error;
  const e = error as NodemailerError;
  const refusedMessage = e.code === 'EENVELOPE' || e.code === 'EMESSAGE';
  const permanent =
    refusedMessage && typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode !== 503;
  const response = e.rejectedErrors?.[0]?.response ?? e.response ?? null;
  const what = e.code ? `${e.code}${e.originalCode ? `/${e.originalCode}` : ''}` : 'error';
  return new MailDeliveryError(response ? `${what}: ${response}` : `${what}: ${e.message}`, {
    permanent,
    response,
    responseCode: e.responseCode ?? null,
    cause: error,
  });
}
