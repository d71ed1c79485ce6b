import { fileURLToPath } from 'node:url';
import type { AppContext } from '../../context.ts';
import { area } from '../autoload.ts';

/** The customer API (/api/client): every route file in this folder. */
export const clientArea = (ctx: AppContext) => area(fileURLToPath(new URL('.', import.meta.url)), ctx);
