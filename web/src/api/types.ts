/**
 * The HTTP contract types the SPA uses. They come from `@vpn/contracts` (shared with the server);
 * anything the SPA needs that the contracts do not define yet is declared here.
 */
export type {
  CurrentManager,
  CurrentUser,
  Plan,
  PublicSettings,
  RegisterBody,
  RuntimeConfig,
} from '@vpn/contracts';
