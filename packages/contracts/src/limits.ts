/**
 * Numbers the server enforces and the SPA shows, in a module without zod: the customer's pages import
 * them without downloading the schemas (issue 28).
 */

/** Rooms (Salas) one customer may own at a time. */
export const MAX_OWNED_ROOMS = 5;
