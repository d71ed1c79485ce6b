/**
 * Managers, two-factor sign-in and the audit log of the manager console (issue 7): request and
 * answer shapes shared by the server and the SPA, and their Spanish messages.
 */
import { z } from './zod.ts';
import { ListQuery, Role } from './admin.ts';
import { LoginBody, PASSWORD_MAX, PASSWORD_MIN, USERNAME_RE } from './auth.ts';
import { CONTROL_CHARS } from './common.ts';
import { msg } from './messages.ts';

export const msgManagers = {
  usernameTaken: 'Ya existe un gestor con ese usuario',
  notFound: 'Gestor no encontrado',
  lastOwner:
    'No se puede deshabilitar, degradar ni eliminar al último propietario activo. Cree o active otro propietario antes.',
  deleteSelf: 'No puede eliminar su propia cuenta de gestor',
  disableSelf: 'No puede deshabilitar su propia cuenta de gestor',
  nothingToChange: 'Indique al menos un campo para cambiar',
  created: 'Gestor creado correctamente',
  deleted: 'Gestor eliminado correctamente',
  totpRequired: 'Introduzca el código de verificación en dos pasos de su aplicación de autenticación',
  totpInvalid: 'El código de verificación no es válido o ya se usó',
  totpAlreadyEnabled: 'La verificación en dos pasos ya está activada',
  totpNotStarted: 'Primero genere el código QR para activar la verificación en dos pasos',
  totpNotEnabled: 'La verificación en dos pasos no está activada',
  totpCodeFormat: 'El código tiene 6 dígitos',
  totpDisableProof: 'Indique un código de verificación o su contraseña',
  wrongPassword: 'La contraseña no es correcta',
  totpDisabled: 'Verificación en dos pasos desactivada',
  totpReset: 'Verificación en dos pasos restablecida: el gestor deberá activarla de nuevo',
  reauthRequired: 'Por seguridad, confirme su contraseña (y su código de verificación) para continuar',
  reauthCodeRequired: 'Indique también el código de verificación de su aplicación de autenticación',
} as const;

const Username = z
  .string({ message: msgManagers.nothingToChange })
  .trim()
  .refine((v) => !CONTROL_CHARS.test(v), { message: msg.nameControlChars, abort: true })
  .regex(
    USERNAME_RE,
    'El usuario debe tener entre 3 y 32 caracteres: letras, números, punto, guion o guion bajo',
  );
const Password = z
  .string()
  .min(PASSWORD_MIN, `La contraseña debe tener al menos ${PASSWORD_MIN} caracteres`)
  .max(PASSWORD_MAX, `La contraseña no puede tener más de ${PASSWORD_MAX} caracteres`);
const RoleField = z.enum(Role.options, { message: 'Rol no válido' });

/** A manager as the console lists it (never the password, never the TOTP secret). */
export const AdminManager = z.object({
  id: z.number().int(),
  username: z.string(),
  role: Role,
  disabled: z.boolean(),
  totp_enabled: z.boolean(),
  created: z.string(),
});
export type AdminManager = z.infer<typeof AdminManager>;

export const NewManagerBody = z
  .object({ username: Username, password: Password, role: RoleField, disabled: z.boolean().optional() })
  .strict();
export type NewManagerBody = z.infer<typeof NewManagerBody>;

export const ManagerPatchBody = z
  .object({
    username: Username.optional(),
    password: Password.optional(),
    role: RoleField.optional(),
    disabled: z.boolean().optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: msgManagers.nothingToChange });
export type ManagerPatchBody = z.infer<typeof ManagerPatchBody>;

export const ManagerListQuery = ListQuery.extend({
  role: RoleField.optional(),
});
export type ManagerListQuery = z.infer<typeof ManagerListQuery>;

/** `/api/admin/login`: the customer login body plus the two-factor code (or a recovery code). */
export const ManagerLoginBody = LoginBody.extend({
  totp: z.string().trim().max(40).optional(),
});
export type ManagerLoginBody = z.infer<typeof ManagerLoginBody>;

/** The 401 code of a login whose password was right but which still needs the two-factor code. */
export const TOTP_REQUIRED = 'totp_required';
/** The 401 code of a wrong or replayed two-factor or recovery code. */
export const TOTP_INVALID = 'totp_invalid';

export const TotpStatus = z.object({
  enabled: z.boolean(),
  recovery_codes_left: z.number().int(),
});
export type TotpStatus = z.infer<typeof TotpStatus>;

/** The start of an enrolment: the secret (base32) and the `otpauth://` URI the QR code carries. */
export const TotpEnrolment = z.object({ secret: z.string(), uri: z.string() });
export type TotpEnrolment = z.infer<typeof TotpEnrolment>;

export const TotpCode = z
  .string({ message: msgManagers.totpCodeFormat })
  .trim()
  .regex(/^\d{6}$/, msgManagers.totpCodeFormat);

export const TotpConfirmBody = z.object({ code: TotpCode }).strict();

/** Shown once, after confirming: each code signs in once instead of a TOTP code. */
export const RecoveryCodes = z.object({ recovery_codes: z.array(z.string()) });
export type RecoveryCodes = z.infer<typeof RecoveryCodes>;

export const TotpDisableBody = z
  .object({ code: z.string().trim().max(40).optional(), password: z.string().max(1024).optional() })
  .strict()
  .refine((b) => Boolean(b.code) || Boolean(b.password), { message: msgManagers.totpDisableProof });

/** The header carrying a fresh confirmation (`POST /api/admin/me/reauth`) to a sensitive operation. */
export const REAUTH_HEADER = 'X-Reauth';
/** The 403 code of a sensitive operation sent without a fresh confirmation. */
export const REAUTH_REQUIRED = 'reauth_required';

/**
 * `POST /api/admin/me/reauth`: the password again (and a two-factor code when enabled) before a
 * sensitive operation — one's own password or two-factor, a new owner, a role, gateway credentials.
 */
export const ReauthBody = z
  .object({ password: z.string().max(1024), code: z.string().trim().max(40).optional() })
  .strict();
export type ReauthBody = z.infer<typeof ReauthBody>;
/** A confirmation for this session, good for `expires_in` seconds, sent as the X-Reauth header. */
export const ReauthAnswer = z.object({ token: z.string(), expires_in: z.number().int() });
export type ReauthAnswer = z.infer<typeof ReauthAnswer>;

/** `GET /api/admin/audit`: filters by manager and by target, plus the usual search and paging. */
export const AuditQuery = ListQuery.extend({
  manager: z.coerce
    .number({ message: 'Gestor no válido' })
    .int('Gestor no válido')
    .positive('Gestor no válido')
    .max(2 ** 31 - 1, 'Gestor no válido')
    .optional(),
  target_type: z
    .string()
    .trim()
    .regex(/^[a-z_]{1,40}$/, 'Tipo de objetivo no válido')
    .optional(),
  target_id: z.string().trim().min(1).max(100, 'Objetivo no válido').optional(),
});
export type AuditQuery = z.infer<typeof AuditQuery>;

export const FieldChange = z.object({ before: z.unknown(), after: z.unknown() });

export const AuditEntry = z.object({
  id: z.number().int(),
  /** Who: the manager's username at the time (null for the system). */
  manager: z.string().nullable(),
  manager_id: z.number().int().nullable(),
  action: z.string(),
  /** The action as a Spanish sentence with names (issue 34): "ana reembolsó 3,00 US$ de la factura…". */
  summary: z.string(),
  /** Each changed field in words ("Salas: sí → no"); `changes` keeps the raw values. */
  details: z.array(z.string()),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  /** Every changed field with its value before and after (secrets shown as '[oculto]'). */
  changes: z.record(z.string(), FieldChange),
  reason: z.string().nullable(),
  /** Other facts the action recorded (plan granted, ids in the path…). */
  extra: z.record(z.string(), z.unknown()).nullable(),
  ip: z.string().nullable(),
  created: z.string(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;
