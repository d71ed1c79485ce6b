/**
 * Numbers the server enforces and the SPA shows, in a module without zod: the customer's pages import
 * them without downloading the schemas (issue 28).
 */

/** Rooms (Salas) one customer may own at a time. */
export const MAX_OWNED_ROOMS = 5;

/**
 * Peers in one room (issue 31): an operator's setting (Ajustes, `room_member_limit`), this by
 * default, within the range. Each member's discovery datagrams are copied to every other member, so
 * the cap bounds a room's copies: its budget × (members − 1) (docs/decisions.md).
 */
export const ROOM_MEMBER_LIMIT = { default: 16, min: 2, max: 64 } as const;

/** A customer's or manager's username: 3 to 32 letters, digits, '.', '-' or '_'. */
export const USERNAME_RE = /^[A-Za-z0-9._-]{3,32}$/;
/** Password length bounds (register and password changes; the sign-up form shows them as typed). */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
