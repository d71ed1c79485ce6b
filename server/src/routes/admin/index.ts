import { fileURLToPath } from 'node:url';
import type { AppContext } from '../../context.ts';
import { area } from '../autoload.ts';

/** The manager API (/api/admin): every route file in this folder, each declaring its permission. */
export const adminArea = (ctx: AppContext) => area(fileURLToPath(new URL('.', import.meta.url)), ctx);
