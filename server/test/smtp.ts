/** A real SMTP server on loopback for mail tests: collects what arrives. */
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  raw: string;
  /** The body with quoted-printable soft breaks and escapes decoded. */
  text: string;
}

function decodeQuotedPrintable(raw: string): string {
  const soft = raw.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const m = /^=([0-9A-F]{2})/.exec(soft.slice(i, i + 3));
    if (m) {
      bytes.push(parseInt(m[1]!, 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

export class TestSmtp {
  readonly mails: ReceivedMail[] = [];
  private server!: SMTPServer;
  port = 0;

  /** `port`: a fixed one (a test restarting the server where the app already points), else any free one. */
  static async start(port = 0): Promise<TestSmtp> {
    const smtp = new TestSmtp();
    smtp.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          smtp.mails.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            text: decodeQuotedPrintable(raw),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.server.listen(port, '127.0.0.1', () => resolve()));
    const address = smtp.server.server.address();
    smtp.port = typeof address === 'object' && address ? address.port : 0;
    return smtp;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async waitFor(to: string, timeoutMs = 5000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mail = this.mails.find((m) => m.to.includes(to));
      if (mail) return mail;
      if (Date.now() > deadline) throw new Error(`no llegó correo para ${to}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The token in a link `…#token=XYZ` found in a mail. */
export function tokenFrom(mail: ReceivedMail, path: string): string {
  const m = new RegExp(`${path}#token=([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!m) throw new Error(`no hay enlace ${path} en el correo`);
  return m[1]!;
}
