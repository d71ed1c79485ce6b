/**
 * The mail the control plane sent during the journeys, read from the SMTP server that the global
 * setup runs (`global-setup.ts` lends its mailbox over loopback HTTP).
 */
import { resolve } from 'node:path';
import { inject } from 'vitest';
import type { ReceivedMail } from './global-setup';

export type { ReceivedMail };

const mailboxUrl = () => inject('mailboxUrl');

/** The first mail sent to `to` (waits up to 15 s for it). */
export async function waitForMail(to: string): Promise<ReceivedMail> {
  const res = await fetch(`${mailboxUrl()}/wait?to=${encodeURIComponent(to)}`);
  if (!res.ok) throw new Error(`no llegó correo para ${to}`);
  return (await res.json()) as ReceivedMail;
}

/** Every mail received so far. */
export async function allMail(): Promise<ReceivedMail[]> {
  return (await (await fetch(`${mailboxUrl()}/mails`)).json()) as ReceivedMail[];
}

/**
 * The token of a `…{path}#token=XYZ` link in a mail, with the server tests' own `tokenFrom`
 * (imported at run time by absolute path, like the setup's `TestSmtp`).
 */
export async function tokenFrom(mail: ReceivedMail, path: string): Promise<string> {
  const file = resolve(import.meta.dirname, '../../server/test/smtp.ts');
  const mod = (await import(/* @vite-ignore */ file)) as {
    tokenFrom(mail: ReceivedMail, path: string): string;
  };
  return mod.tokenFrom(mail, path);
}
