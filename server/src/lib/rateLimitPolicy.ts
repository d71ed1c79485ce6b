/** The shape of the rate limits (config.ts reads them, services/identity/rateLimit.ts counts them). */
export interface Limit {
  /** Allowed hits at once, and per `windowSeconds` sustained. */
  max: number;
  windowSeconds: number;
}

/**
 * The rate limits of the auth endpoints; operators set them from the environment
 * (`RATE_LIMIT_<NAME>=max/seconds`, README) and tests may tighten or loosen them.
 *
 * They throttle abuse, not customers: many customers share one address (carrier-grade NAT on Cuban
 * mobile data), so no limit counts a successful login; per-address limits count failures.
 */
export interface RateLimitPolicy {
  /** Managers' failed logins (wrong password or code) per address: past it, that address waits. */
  loginPerIp: Limit;
  /** Managers' failed logins per username: past it, the right password needs a solved captcha. */
  loginPerUsername: Limit;
  /** Customers' failed logins per address. */
  loginFailuresPerIp: Limit;
  /** Customers' wrong passwords per account: past it, the right password needs a solved captcha. */
  loginFailuresPerAccount: Limit;
  /** Registrations per address (counted after the captcha, registration's first gate). */
  registerPerIp: Limit;
  refreshPerIp: Limit;
  mirrorPerIp: Limit;
  /** Failed recoveries, resets and verifications per address. */
  recoveryPerIp: Limit;
  /** Recovery requests per username: past it, a request needs a solved captcha. */
  recoveryPerUsername: Limit;
  /** Password changes (wrong current passwords included) per account. */
  passwordChangePerAccount: Limit;
  /** A manager's sensitive operations (fresh password and code checks) per manager. */
  sensitivePerManager: Limit;
  /** Customers' key regenerations and server changes per peer. */
  peerChangesPerPeer: Limit;
  /** Invoices a customer creates (each a row and one or two calls to the gateway). */
  invoicesPerCustomer: Limit;
}
