import nodemailer, { type Transporter } from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { MailConfig } from '../../config.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Outgoing e-mail over SMTP (nodemailer). Without SMTP_URL it says so once in the log and sends nothing. */
export class Mailer {
  private readonly transport: Transporter | null;
  private warned = false;
  /** Told the outcome of every attempted send (the metrics count mails sent and failed). */
  onResult: ((sent: boolean) => void) | null = null;

  constructor(
    private readonly config: MailConfig | null,
    private readonly log: FastifyBaseLogger,
  ) {
    this.transport = config ? nodemailer.createTransport(config.url) : null;
  }

  get enabled(): boolean {
    return this.transport !== null;
  }

  /**
   * The absolute address of an SPA page for a mail, or null when mail is off (said once in the log).
   * Always PUBLIC_URL, which the configuration requires with SMTP_URL: never the request's Host or
   * X-Forwarded-Host, which anyone can forge to have a genuine mail carry a token to their own host.
   */
  link(path: string): string | null {
    if (!this.config) {
      this.warnOff();
      return null;
    }
    return `${this.config.publicUrl}${path}`;
  }

  private warnOff(): void {
    if (this.warned) return;
    this.log.warn(
      'correo desactivado: defina SMTP_URL para enviar verificaciones y recuperaciones de contraseña',
    );
    this.warned = true;
  }

  /** Sends, or logs once that mail is off. Failures are logged (without the message) and reported as false. */
  async send(mail: Mail): Promise<boolean> {
    if (!this.transport || !this.config) {
      this.warnOff();
      return false;
    }
    try {
      await this.transport.sendMail({ from: this.config.from, ...mail });
      this.onResult?.(true);
      return true;
    } catch (err) {
      this.onResult?.(false);
      this.log.error(
        { err: { message: (err as Error).message }, subject: mail.subject },
        'no se pudo enviar un correo',
      );
      return false;
    }
  }

  close(): void {
    this.transport?.close();
  }
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A plain, readable e-mail: one paragraph list and one button, in Spanish, with the company name. */
export function composeMail(
  company: string,
  to: string,
  subject: string,
  paragraphs: string[],
  action: { label: string; url: string },
): Mail {
  const text = [...paragraphs, '', `${action.label}: ${action.url}`, '', `— ${company}`].join('\n');
  const html = `<!doctype html><html lang="es"><body style="font-family:system-ui,sans-serif;color:#0f172a;max-width:560px;margin:auto;padding:24px">
<h2 style="color:#047857">${escape(company)}</h2>
${paragraphs.map((p) => `<p>${escape(p)}</p>`).join('\n')}
<p><a href="${escape(action.url)}" style="display:inline-block;background:#059669;color:#fff;padding:10px 18px;border-radius:8px;text-decoration:none">${escape(action.label)}</a></p>
<p style="font-size:12px;color:#64748b">Si el botón no funciona, copie este enlace en su navegador:<br>${escape(action.url)}</p>
</body></html>`;
  return { to, subject: `${subject} — ${company}`, text, html };
}
