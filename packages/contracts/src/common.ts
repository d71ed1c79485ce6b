import { z } from './zod.ts';

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
