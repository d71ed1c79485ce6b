/**
 * One device per peer (issue 19): what the console sets (Ajustes → Uso simultáneo) and the Spanish
 * texts customers and managers see. Detection itself is on the VPN servers (agent/src/concurrent.ts);
 * the agent message is in agent.ts.
 */
import { z } from './zod.ts';

export const concurrentMsg = {
  /** The customer's `info` push when a peer is flagged. */
  detected: (name: string) =>
    `El peer ${name} parece estar en uso en más de un dispositivo a la vez. Eso vuelve inestables ambas conexiones: cada dispositivo necesita su propio peer.`,
  /** The `info` push when the policy regenerated the keys. */
  regenerated: (name: string) =>
    `El peer ${name} se usaba en más de un dispositivo a la vez y sus claves se regeneraron: importa la configuración nueva desde su enlace espejo (o descárgala de nuevo). Cada dispositivo necesita su propio peer.`,
  policyAction: 'La política debe ser notify o regenerate',
  policyAfter: 'El número de detecciones debe ser un entero entre 1 y 100',
  policyEmpty: 'Indique la política o el número de detecciones',
} as const;

/**
 * `notify` (default): the customer is told, nothing else. `regenerate`: after `regenerate_after`
 * detections of the same peer within 24 h its keys are regenerated (the customer is told and gets
 * the new configuration through the mirror link).
 */
export const ConcurrentUsePolicy = z.object({
  action: z.enum(['notify', 'regenerate']),
  regenerate_after: z.number().int().min(1).max(100),
});
export type ConcurrentUsePolicy = z.infer<typeof ConcurrentUsePolicy>;

export const DEFAULT_CONCURRENT_USE_POLICY: ConcurrentUsePolicy = { action: 'notify', regenerate_after: 3 };

export const ConcurrentUsePolicyPatch = z
  .strictObject({
    action: z.enum(['notify', 'regenerate'], { message: concurrentMsg.policyAction }),
    regenerate_after: z
      .number({ message: concurrentMsg.policyAfter })
      .int(concurrentMsg.policyAfter)
      .min(1, concurrentMsg.policyAfter)
      .max(100, concurrentMsg.policyAfter),
  })
  .partial()
  .refine((b) => b.action !== undefined || b.regenerate_after !== undefined, {
    message: concurrentMsg.policyEmpty,
  });
export type ConcurrentUsePolicyPatch = z.infer<typeof ConcurrentUsePolicyPatch>;
