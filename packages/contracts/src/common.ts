import { z } from './zod.ts';
import { msg } from './messages.ts';

/**
 * Control characters (C0, DEL, C1) and the Unicode line and paragraph separators. No name may hold
 * one: a newline in a peer's name would start a new command in the MikroTik script, and any of them
 * corrupts logs, CSV exports and terminals.
 */
export const CONTROL_CHARS = /[\p{Cc}\u2028\u2029]/u;

/** A zod string check that refuses control characters with the Spanish message. */
export const noControlChars = <T extends z.ZodType<string>>(schema: T) =>
  schema.refine((v) => !CONTROL_CHARS.test(v), { message: msg.nameControlChars });

/** Every error answer of the HTTP API. */
export const ErrorBody = z.object({
  message: z.string(),
  code: z.string().optional(),
  fields: z.record(z.string(), z.string()).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const MessageBody = z.object({ message: z.string() });
export type MessageBody = z.infer<typeof MessageBody>;

export { VALIDITY_RE } from './validity.ts';
