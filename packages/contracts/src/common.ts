import { z } from 'zod';

/** Every error answer of the HTTP API. */
export const ErrorBody = z.object({
  message: z.string(),
  code: z.string().optional(),
  fields: z.record(z.string(), z.string()).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const MessageBody = z.object({ message: z.string() });
export type MessageBody = z.infer<typeof MessageBody>;

/** Validity stored and sent as Postgres-interval text: 'N days HH:MM:SS'. */
export const VALIDITY_RE = /^(\d+) days? (\d{2}):(\d{2}):(\d{2})$/;
