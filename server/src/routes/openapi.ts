/** The OpenAPI fields every manager route's schema repeats: its tag, summary and bearer security. */
export const adminDoc = (summary: string) => ({ tags: ['admin'], summary, security: [{ bearer: [] }] });
