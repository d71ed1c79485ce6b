/**
 * The HTTP contract types the SPA uses. They come from `@vpn/contracts` (shared with the server);
 * anything the SPA needs that the contracts do not define yet is declared here.
 */
import type { RuntimeConfig } from '@vpn/contracts';

export type {
  CurrentManager,
  CurrentUser,
  LoginBody,
  MessageBody,
  Plan,
  PublicSettings,
  RegisterBody,
  RuntimeConfig,
  ServiceStatus,
  TokenPair,
  WebSettings,
} from '@vpn/contracts';

/** The captcha part of the runtime config. */
export type CaptchaConfig = RuntimeConfig['captcha'];
