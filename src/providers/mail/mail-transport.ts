/** One message ready to leave: every header value already a single line (see mail-headers.ts). */
export interface OutgoingMail {
  /** The outbox row's id: the file name of an `.eml`, and part of the Message-ID. */
  id: string;
  from: { name: string | null; address: string };
  to: string;
  subject: string;
  text: string;
  html: string | null;
}

/** What the transport did with an accepted message. */
export interface SentMail {
  /** The Message-ID header sent. */
  messageId: string;
  /** The server's answer (`250 2.0.0 OK queued as ...`) or the file written. */
  response: string;
  /** A file the message was written to (the `.eml` transport), as a `file://` URL. */
  file?: string;
}

/**
 * Where mail goes: an SMTP relay (`SMTP_URL`) or, without one, `.eml` files under
 * `DATA_DIR/mail/` (docs/mail.md). `send` resolves when the message was accepted and throws
 * MailDeliveryError when it was not.
 */
export interface MailTransport {
  readonly kind: 'smtp' | 'file';
  send(mail: OutgoingMail): Promise<SentMail>;
  /** What `/health` shows: never credentials. */
  describe(): Record<string, unknown>;
  close(): Promise<void>;
}

/**
 * A message the transport could not hand over. `permanent`: the server refused this message or
 * its recipient for good (a 5xx answer to RCPT TO or DATA): sending it again gets the same answer.
 * Anything else (server unreachable, 4xx, a dropped connection, refused credentials) is worth
 * another try later.
 */
export class MailDeliveryError extends Error {
  readonly permanent: boolean;
  /** The server's answer, when there was one (`550 5.1.1 <x@example.com>: user unknown`). */
  readonly response: string | null;
  readonly responseCode: number | null;

  constructor(
    message: string,
    options: { permanent: boolean; response?: string | null; responseCode?: number | null; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.name = 'MailDeliveryError';
    this.permanent = options.permanent;
    this.response = options.response ?? null;
    this.responseCode = options.responseCode ?? null;
  }
}
